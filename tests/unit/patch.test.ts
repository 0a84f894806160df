// src/editor-files/patch on its own: the grammar (as lenient as Codex's parser) and hunks applied to text.
import { describe, expect, it } from "vitest";
import {
  applyHunks,
  describePatch,
  parsePatch,
  PatchConflictError,
  PatchSyntaxError,
} from "../../src/editor-files/patch/index.js";

const patch = (...body: string[]): string => ["*** Begin Patch", ...body, "*** End Patch"].join("\n");
const update = (text: string, ...body: string[]): string => {
  const [op] = parsePatch(patch("*** Update File: f.txt", ...body));
  if (op?.type !== "update") throw new Error("not an update");
  return applyHunks(text, op.hunks, "f.txt");
};

describe("parsePatch", () => {
  it("reads every operation", () => {
    const ops = parsePatch(
      patch(
        "*** Add File: new.txt",
        "+one",
        "+",
        "+two",
        "*** Delete File: gone.txt",
        "*** Update File: src/a.ts",
        "*** Move to: src/b.ts",
        "@@ function f() {",
        "-  return 1;",
        "+  return 2;",
        " }",
        "@@",
        " x",
        "+y",
        "*** End of File",
      ),
    );
    expect(ops).toEqual([
      { type: "add", path: "new.txt", content: "one\n\ntwo\n" },
      { type: "delete", path: "gone.txt" },
      {
        type: "update",
        path: "src/a.ts",
        moveTo: "src/b.ts",
        hunks: [
          {
            anchor: "function f() {",
            oldLines: ["  return 1;", "}"],
            newLines: ["  return 2;", "}"],
            contextOf: [undefined, 1],
            endOfFile: false,
            patchLine: 9,
          },
          { oldLines: ["x"], newLines: ["x", "y"], contextOf: [0, undefined], endOfFile: true, patchLine: 13 },
        ],
      },
    ]);
  });

  it("is lenient where Codex is: padded markers, CRLF, a heredoc wrapper, a first hunk without @@, blank lines between hunks", () => {
    const text = [
      "<<'EOF'",
      "  *** Begin Patch  ",
      "*** Update File: a.txt",
      " keep",
      "-old",
      "+new",
      "",
      "",
      "@@ next",
      "-x",
      "+y",
      " *** End Patch",
      "EOF",
    ].join("\r\n");
    const [op] = parsePatch(text);
    expect(op).toMatchObject({ type: "update", path: "a.txt" });
    expect(op?.type === "update" && op.hunks.map((h) => [h.oldLines, h.newLines])).toEqual([
      [
        ["keep", "old", "", ""],
        ["keep", "new", "", ""],
      ],
      [["x"], ["y"]],
    ]);
  });

  it("an empty patch has no operations; a pure move needs no hunk", () => {
    expect(parsePatch(patch())).toEqual([]);
    expect(parsePatch(patch("*** Update File: a", "*** Move to: b"))).toEqual([
      { type: "update", path: "a", moveTo: "b", hunks: [] },
    ]);
  });

  it.each([
    ["not a patch", "line 1: the first line must be '*** Begin Patch'"],
    ["*** Begin Patch\n*** Add File: a\n+x", "line 3: the last line must be '*** End Patch'"],
    [patch("*** Frobnicate File: a"), "line 2: '*** Frobnicate File: a' is not a file operation"],
    [patch("*** Update File: a"), "line 2: the update of 'a' has no hunks"],
    [patch("*** Update File: a", "oops"), "line 3: unexpected line 'oops'"],
    [patch("*** Update File: a", "@@", "-x", "@@"), "line 5: a hunk has no lines"],
    [patch("*** Add File:   "), "line 2: a file operation needs a path"],
    [patch("*** Add File:"), "line 2: a file operation needs a path"],
  ])("rejects %j", (text, message) => {
    expect(() => parsePatch(text)).toThrow(PatchSyntaxError);
    expect(() => parsePatch(text)).toThrow(message);
  });
});

describe("applyHunks", () => {
  it("replaces, inserts and deletes lines in order", () => {
    expect(update("a\nb\nc\nd\n", "@@", " a", "-b", "+B", "@@", " c", "-d")).toBe("a\nB\nc\n");
  });

  it("searches below the @@ anchor", () => {
    const text = "function one() {\n  return 0;\n}\nfunction two() {\n  return 0;\n}\n";
    expect(update(text, "@@ function two() {", "-  return 0;", "+  return 2;")).toBe(
      text.replace(/(two\(\) \{\n {2})return 0/, "$1return 2"),
    );
  });

  it("tolerates trailing whitespace, indentation and typographic punctuation, and keeps the file's own lines", () => {
    expect(update("x = 1;   \n", "-x = 1;", "+x = 2;")).toBe("x = 2;\n");
    expect(update("    deep();\n", "-deep();", "+    deeper();")).toBe("    deeper();\n");
    expect(update("say(\u201Chi\u201D) \u2014 ok\n", '-say("hi") - ok', "+said")).toBe("said\n");
    expect(update("keep\u00A0this\nchange\n", " keep this", "-change", "+changed")).toBe("keep\u00A0this\nchanged\n");
  });

  it("keeps CRLF line endings and the absence of a final newline", () => {
    expect(update("a\r\nb\r\nc\r\n", " a", "-b", "+B", "+B2")).toBe("a\r\nB\r\nB2\r\nc\r\n");
    expect(update("a\nb", " a", "-b", "+c")).toBe("a\nc");
    expect(update("a\nb", "@@", "+c")).toBe("a\nb\nc");
  });

  it("handles multi-byte text", () => {
    expect(update("héllo wörld\n日本語\n🙂 smile\n", " héllo wörld", "-日本語", "+中文", " 🙂 smile")).toBe(
      "héllo wörld\n中文\n🙂 smile\n",
    );
  });

  it("an End of File hunk matches the last lines; a trailing empty line may stand for the final newline", () => {
    expect(update("x\ny\nx\n", "-x", "+z", "*** End of File")).toBe("x\ny\nz\n");
    expect(update("a\nb\n", " a", "-b", "+c", "")).toBe("a\nc\n");
  });

  it("names the file, the hunk and the lines that did not match", () => {
    const err = (() => {
      try {
        update("a\nb\nc\n", "@@", "-a", "+A", "@@", "-missing", "-lines");
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(PatchConflictError);
    expect((err as Error).message).toBe(
      "The patch does not apply to f.txt (hunk 2 of 2, patch line 6): these lines were not found below line 1:\n  missing\n  lines",
    );
    expect(() => update("a\n", "@@ nowhere", "-a")).toThrow("no line matching the @@ anchor 'nowhere'");
  });

  it("hunks that want the same lines conflict: the second finds them gone", () => {
    expect(() => update("a\nb\n", "@@", "-a", "+A", "@@", "-a", "+AA")).toThrow(PatchConflictError);
    expect(() => update("a\nb\nc\n", "@@", " b", "-c", "@@", "-c", "+d", "*** End of File")).toThrow(
      "changes lines that another hunk already changes",
    );
  });

  it("200 hunks over a large text stay linear", () => {
    const lines = Array.from({ length: 40_000 }, (_, i) => `line ${i}`);
    const body: string[] = [];
    for (let h = 0; h < 200; h++) body.push("@@", ` line ${h * 200}`, `-line ${h * 200 + 1}`, `+changed ${h}`);
    const out = update(`${lines.join("\n")}\n`, ...body);
    expect(out.split("\n").filter((l) => l.startsWith("changed")).length).toBe(200);
  });
});

describe("describePatch", () => {
  it("titles, kinds and absolute paths", () => {
    expect(describePatch(patch("*** Delete File: a.txt"), "/ws")).toMatchObject({
      title: "Delete /ws/a.txt",
      kind: "delete",
      paths: ["/ws/a.txt"],
    });
    expect(describePatch(patch("*** Update File: a", "*** Move to: /x/b"), "/ws")).toMatchObject({
      title: "Move /ws/a to /x/b",
      kind: "move",
      paths: ["/ws/a", "/x/b"],
    });
    expect(describePatch(patch("*** Add File: n", "+x", "*** Delete File: m"), "/ws")).toMatchObject({
      title: "Edit 2 files",
      kind: "edit",
    });
    expect(describePatch("garbage")).toBeUndefined();
  });
});
