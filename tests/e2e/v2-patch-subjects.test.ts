// Issue 48: under ACP v2 (no client fs, so Codex's own apply_patch: a fileChange item and its
// approval request), Review Edits asks with a subject that carries the whole change before the
// yes: every file's operation (add, modify, delete, move with its source) and the patch. The
// completed update names them the same way, and a move's title names both paths.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { applyPatch, textResponse, type ScriptedResponse } from "../../tools/fake-model/index.js";
import { startV2Adapter, type V2Adapter, type V2Answer } from "../support/adapter-v2.js";
import { v2Violations } from "../support/v2-schema.js";

let adapter: V2Adapter | undefined;
afterEach(async () => {
  const violations = adapter ? await v2Violations(adapter.stdoutLines) : [];
  await adapter?.close();
  adapter = undefined;
  expect(violations).toEqual([]);
});

type ToolCallUpdate = Extract<v2.SessionUpdate, { sessionUpdate: "tool_call_update" }>;
type V2Diff = Extract<v2.ToolCallContent, { type: "diff" }>;
const done: ScriptedResponse = textResponse("finished");
const subjectCall = (r: v2.RequestPermissionRequest): ToolCallUpdate | undefined =>
  r.subject?.type === "tool_call" && "toolCall" in r.subject ? (r.subject.toolCall as ToolCallUpdate) : undefined;
const diffsOf = (content: v2.ToolCallContent[] | null | undefined): V2Diff[] =>
  (content ?? []).filter((c): c is V2Diff => c.type === "diff");
/** Every file's change, in path order (Codex lists a patch's files in its own order). */
const changesOf = (content: v2.ToolCallContent[] | null | undefined): v2.DiffChange[] =>
  diffsOf(content)
    .flatMap((d) => d.changes)
    .sort((x, y) => String(x.path).localeCompare(String(y.path)));
/** Each file's git patch, by the change's path. */
const patchesOf = (content: v2.ToolCallContent[] | null | undefined): Map<string, string> =>
  new Map(diffsOf(content).map((d) => [String(d.changes[0]?.path), d.patch?.text ?? ""]));
/** Answers by tool call id: the option of that kind, else cancel. */
const answerBy =
  (kinds: Record<string, "allow_once" | "reject_once">): V2Answer =>
  (r) => {
    const kind = kinds[subjectCall(r)?.toolCallId ?? ""];
    return r.options.find((o) => o.kind === kind)?.optionId ?? "cancel";
  };

const FOUR = [
  "*** Begin Patch",
  "*** Add File: added.txt",
  "+added",
  "*** Update File: notes.txt",
  "@@",
  "-old note",
  "+new note",
  "*** Delete File: src/app.js",
  "*** Update File: README.md",
  "*** Move to: moved/README.md",
  "@@",
  " # readme",
  "+moved",
  "*** End Patch",
].join("\n");

async function reviewEdits(
  responses: ScriptedResponse[],
  answer: V2Answer,
): Promise<{ a: V2Adapter; sessionId: string }> {
  adapter = await startV2Adapter({ responses, answer });
  await adapter.initialize();
  const { sessionId } = await adapter.newSession();
  await adapter.agent.request("session/set_config_option", {
    sessionId,
    configId: "mode",
    type: "id",
    value: "review-edits",
  });
  return { a: adapter, sessionId };
}

async function seed(ws: string): Promise<Record<string, string>> {
  const files = { "notes.txt": "old note\n", "src/app.js": "console.log(1);\n", "README.md": "# readme\n" };
  await mkdir(path.join(ws, "src"), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(ws, name), text);
  return files;
}

describe("ACP v2 Review Edits: permission subjects carry the whole change", () => {
  it("the four-operation patch's subject lists add, modify, delete and move (with oldPath) and carries the patch; refused, nothing changes; allowed, the completed update names them the same way", async () => {
    const patch = (id: string): ScriptedResponse => ({ items: [applyPatch(FOUR, { callId: id })] });
    const { a, sessionId } = await reviewEdits(
      [patch("p1"), done, patch("p2"), done],
      answerBy({ p1: "reject_once", p2: "allow_once" }),
    );
    const ws = a.workspace;
    const files = await seed(ws);
    const at = (p: string): string => path.join(ws, p);
    const expected: v2.DiffChange[] = [
      { operation: "add", path: at("added.txt") },
      { operation: "move", oldPath: at("README.md"), path: at("moved/README.md") },
      { operation: "modify", path: at("notes.txt") },
      { operation: "delete", path: at("src/app.js") },
    ].sort((x, y) => x.path.localeCompare(y.path)) as v2.DiffChange[];

    await a.turn(sessionId, "change four files, refused");
    expect(a.asked).toHaveLength(1);
    const refused = subjectCall(a.asked[0]!);
    expect(refused?.toolCallId).toBe("p1");
    expect(changesOf(refused?.content)).toEqual(expected);
    // Each change comes with its git patch, consistent with it.
    const patches = patchesOf(refused?.content);
    expect(patches.size).toBe(4);
    expect(patches.get(at("added.txt"))).toContain("new file mode 100644");
    expect(patches.get(at("added.txt"))).toContain("+added");
    expect(patches.get(at("notes.txt"))).toContain("-old note\n+new note");
    expect(patches.get(at("src/app.js"))).toContain("deleted file mode 100644");
    expect(patches.get(at("src/app.js"))).toContain("-console.log(1);");
    expect(patches.get(at("moved/README.md"))).toContain(
      `rename from ${at("README.md").slice(1)}\nrename to ${at("moved/README.md").slice(1)}`,
    );
    expect(patches.get(at("moved/README.md"))).toContain(" # readme\n+moved");
    // Nothing of the change is left to text only.
    expect(refused?.content?.filter((c) => c.type !== "diff")).toEqual([]);
    // Refused: the disk is as it was.
    expect(existsSync(at("added.txt"))).toBe(false);
    expect(existsSync(at("moved/README.md"))).toBe(false);
    for (const [name, text] of Object.entries(files)) expect(await readFile(at(name), "utf8")).toBe(text);

    await a.turn(sessionId, "change four files, allowed");
    expect(a.asked).toHaveLength(2);
    expect(changesOf(subjectCall(a.asked[1]!)?.content)).toEqual(expected);
    const completed = a
      .updatesOf(sessionId)
      .filter(
        (u): u is ToolCallUpdate =>
          u.sessionUpdate === "tool_call_update" && u.toolCallId === "p2" && u.status === "completed",
      );
    expect(completed).toHaveLength(1);
    expect(changesOf(completed[0]!.content)).toEqual(expected);
    expect(await readFile(at("added.txt"), "utf8")).toBe("added\n");
    expect(await readFile(at("notes.txt"), "utf8")).toBe("new note\n");
    expect(existsSync(at("src/app.js"))).toBe(false);
    expect(existsSync(at("README.md"))).toBe(false);
    expect(await readFile(at("moved/README.md"), "utf8")).toBe("# readme\nmoved\n");
  });

  it("a single move is asked as 'Move A to B' with the move (and its oldPath) in the subject; refused, nothing moves", async () => {
    const move = [
      "*** Begin Patch",
      "*** Update File: README.md",
      "*** Move to: docs/README.md",
      "@@",
      " # readme",
      "+more",
      "*** End Patch",
    ].join("\n");
    const { a, sessionId } = await reviewEdits(
      [{ items: [applyPatch(move, { callId: "m1" })] }, done],
      answerBy({ m1: "reject_once" }),
    );
    const ws = a.workspace;
    await seed(ws);
    const from = path.join(ws, "README.md");
    const to = path.join(ws, "docs/README.md");

    await a.turn(sessionId, "move the readme");
    expect(a.asked).toHaveLength(1);
    expect(a.asked[0]!.title).toBe(`Move ${from} to ${to}`);
    const subject = subjectCall(a.asked[0]!);
    expect(subject).toMatchObject({ toolCallId: "m1", kind: "move" });
    expect(changesOf(subject?.content)).toEqual([{ operation: "move", oldPath: from, path: to }]);
    expect(diffsOf(subject?.content)[0]?.patch?.text).toContain("+more");
    expect(await readFile(from, "utf8")).toBe("# readme\n");
    expect(existsSync(to)).toBe(false);
  });
});
