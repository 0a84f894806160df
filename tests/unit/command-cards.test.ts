// Issue 48 item 4: a card never makes a change look like a read. A command shows as `read` /
// `search` with Codex's summary only when Codex parses all of it as reads or searches AND its text
// shows no sign of a change; otherwise it is `execute`, titled with its command line.
import { describe, expect, it } from "vitest";
import type { v2 } from "../../src/codex/index.js";
import { describeCommand } from "../../src/bridge/commands.js";
import { mayChange } from "../../src/shell/index.js";
import { ThreadEventTranslator } from "../../src/bridge/translator.js";
import { note } from "../support/codex-messages.js";

const search = (command: string): v2.CommandAction[] => [{ type: "search", command, query: "x", path: "." }];
const read = (command: string): v2.CommandAction[] => [{ type: "read", command, name: "notes.txt", path: "notes.txt" }];

// Each of these Codex's parser reports as reads, searches or listings (its formatting helpers in a
// pipeline, such as tee, sort, xargs, awk and sed, are dropped from its summary), yet each changes
// something or runs another program.
const CHANGES = [
  "find . -name notes.txt -delete",
  "find . -name '*.tmp' -exec rm {} \\;",
  "find . -name x -execdir rm {} +",
  "find . -name x -ok rm {} \\;",
  "find . -name x -okdir rm {} \\;",
  "find . -name x -fprint found.txt",
  "find . -name x -fprint0 found.txt",
  "find . -name x -fprintf found.txt %p",
  "find . -name x -fls found.txt",
  "find . -name x | xargs rm",
  "find . -name x -print0 | xargs -0 -n 1 rm -f",
  "fd x -x rm",
  "fd x --exec-batch rm",
  "rg --pre ./script.sh pattern",
  "git grep -O vim TODO",
  "cat notes.txt > copy.txt",
  "cat notes.txt >> log.txt",
  "cat notes.txt 2> err.txt",
  "cat notes.txt &> all.txt",
  "cat notes.txt >| forced.txt",
  "ls >listing.txt",
  "cat notes.txt | tee copy.txt",
  "rg x | sort -o sorted.txt",
  "cat notes.txt | uniq - out.txt",
  "sed -i 's/a/b/' notes.txt",
  "sed -i.bak 's/a/b/' notes.txt",
  "sed --in-place 's/a/b/' notes.txt",
  "cat notes.txt | sed -n 's/a/b/w out.txt'",
  "awk '{ print > \"out.txt\" }' notes.txt",
  "awk '{ system(\"rm \" $1) }' notes.txt",
  "tree -o tree.txt",
  "cat notes.txt; rm notes.txt",
  "rm notes.txt && cat other.txt",
  "mv a b && cat b",
  "cat notes.txt && touch done",
  "cat $(rm -f notes.txt)",
  "cat `rm -f notes.txt`",
  "cat <(rm -f notes.txt)",
  "python3 -c 'import os; [os.remove(f) for f in os.listdir(\".\")]'",
  "FOO=1 cat notes.txt",
  "sudo cat /etc/shadow",
  "cat 'unterminated",
];

// Reads and searches as models write them: they stay reads and searches.
const READS = [
  "cat notes.txt",
  "sed -n '1,10p' notes.txt",
  "rg -n 'a > b' src",
  'grep -r "x; rm y" .',
  "rg TODO 2>/dev/null",
  "cat notes.txt 2>&1 | head -n 5",
  "rg --files | wc -l",
  "cd src && cat notes.txt",
  "find . -name '*.ts' -type f",
  "find . -name x -print",
  "ls -la | sed -n '1,120p'",
  "echo --- && cat notes.txt",
  "rg --files | sort | uniq",
  "find . -name x | xargs grep -n TODO",
  "git grep TODO src",
  "git ls-files src",
  "cat notes.txt | tee",
  "cat notes.txt < /dev/null",
  "nl -ba notes.txt | sed -n '1,20p'",
  "awk '$1 > 5' notes.txt",
];

describe("which commands may change something", () => {
  it.each(CHANGES.map((command) => ({ command })))("$command: may change", ({ command }) => {
    expect(mayChange(command)).toBe(true);
  });
  it.each(READS.map((command) => ({ command })))("$command: only reads", ({ command }) => {
    expect(mayChange(command)).toBe(false);
  });
});

describe("command cards", () => {
  it("a command Codex calls a search but that deletes is execute, titled with its command line", () => {
    const view = describeCommand(
      "/bin/bash -lc 'find . -name notes.txt -delete'",
      "/w",
      search("find . -name notes.txt -delete"),
    );
    expect(view).toMatchObject({
      kind: "execute",
      title: "find . -name notes.txt -delete",
      rawInput: { command: "find . -name notes.txt -delete", cwd: "/w" },
    });
  });
  it("a command Codex calls a read but that writes is execute, titled with its command line", () => {
    expect(describeCommand("/bin/bash -lc 'cat notes.txt > copy.txt'", "/w", read("cat notes.txt"))).toMatchObject({
      kind: "execute",
      title: "cat notes.txt > copy.txt",
    });
    expect(describeCommand("/bin/bash -lc 'find . -name x | xargs rm'", "/w", search("find . -name x"))).toMatchObject({
      kind: "execute",
      title: "find . -name x | xargs rm",
    });
  });
  it("a read that only reads keeps Codex's summary", () => {
    expect(describeCommand("/bin/bash -lc 'cat notes.txt'", "/w", read("cat notes.txt"))).toMatchObject({
      kind: "read",
      title: "Read notes.txt",
      locations: [{ path: "/w/notes.txt" }],
    });
    expect(describeCommand("/bin/bash -lc 'rg x .'", "/w", search("rg x ."))).toMatchObject({
      kind: "search",
      title: 'Search "x" in .',
    });
  });
  it("the card announced at item/started is already execute", () => {
    const t = new ThreadEventTranslator();
    const started = t.translate(
      note("item/started", {
        item: {
          type: "commandExecution",
          id: "d1",
          command: "/bin/bash -lc 'find . -name notes.txt -delete'",
          cwd: "/w",
          commandActions: search("find . -name notes.txt -delete"),
          status: "inProgress",
        },
      }),
    );
    expect(started).toEqual([
      expect.objectContaining({
        sessionUpdate: "tool_call",
        toolCallId: "d1",
        kind: "execute",
        title: "find . -name notes.txt -delete",
      }),
    ]);
  });
});
