// The folders a recorded client names become placeholders, and a replay makes fresh ones
// (issue 51, item 7: a recording replays anywhere, after its folders are gone).
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ClientFolders, foldersOf } from "../../tools/transcripts/client-folders.js";
import { pathsToPlaceholders } from "../../tools/transcripts/normalise.js";
import { prepareSandbox } from "../../tools/transcripts/replay/sandbox.js";

const open = (params: Record<string, unknown>, method = "session/new") => ({ jsonrpc: "2.0", id: 1, method, params });

describe("the client's folders", () => {
  it("are the cwd and additionalDirectories of the requests that open a session, absolute, not a root", () => {
    expect(foldersOf(open({ cwd: "/p", additionalDirectories: ["/q", "rel", "/"] }))).toEqual(["/p", "/q"]);
    expect(foldersOf(open({ cwd: "/p" }, "session/fork"))).toEqual(["/p"]);
    expect(foldersOf(open({ cwd: "/p" }, "session/list"))).toEqual([]);
  });

  it("the first cwd is <CWD>, a folder outside it <DIR_n>, one inside it a folder a replay creates there", () => {
    const folders = new ClientFolders();
    folders.learn(open({ cwd: "/nowhere/proj/", additionalDirectories: ["/nowhere/lib", "/nowhere/proj/sub"] }));
    folders.learn(open({ cwd: "/nowhere/other", additionalDirectories: ["/nowhere/lib"] }, "session/load"));
    expect(folders.named).toEqual({ "<CWD>": "/nowhere/proj", "<DIR_1>": "/nowhere/lib", "<DIR_2>": "/nowhere/other" });
    expect(folders.directories).toEqual(["<DIR_1>", "<CWD>/sub", "<DIR_2>"]);
    expect(pathsToPlaceholders("see /nowhere/proj/a.ts and file:///nowhere/lib/b.ts", folders.placeholders)).toBe(
      "see <CWD>/a.ts and file://<DIR_1>/b.ts",
    );
  });

  it("with the recorder's own workspace as <CWD>, a client's other cwd stands for it too", () => {
    const folders = new ClientFolders({
      "<CWD>": ["/tmp/acp-replay-x/workspace"],
      "<HOME>": ["/tmp/acp-replay-x/codex/home"],
    });
    folders.learn(open({ cwd: "/home/me/proj" }));
    expect(pathsToPlaceholders(["/home/me/proj/a", "/tmp/acp-replay-x/workspace/b"], folders.placeholders)).toEqual([
      "<CWD>/a",
      "<CWD>/b",
    ]);
    expect(folders.directories).toEqual([]);
  });

  it("the recorder's own workspace given as the cwd adds nothing", () => {
    const folders = new ClientFolders({ "<CWD>": ["/tmp/acp-replay-x/workspace"] });
    folders.learn(open({ cwd: "/tmp/acp-replay-x/workspace", additionalDirectories: ["/elsewhere"] }));
    expect(folders.placeholders["<CWD>"]).toEqual(["/tmp/acp-replay-x/workspace"]);
    expect(folders.placeholders["<DIR_1>"]).toEqual(["/elsewhere"]);
  });
});

describe("a replay's folders", () => {
  const header = (directories: string[]) => ({
    type: "header" as const,
    version: 1 as const,
    agent: { command: ["x"] },
    protocolVersion: 1,
    workspace: { directories },
    recordedAt: "",
  });

  it("are fresh: <DIR_n> beside the workspace (a placeholder of the run), <CWD>/sub inside it", async () => {
    const sandbox = await prepareSandbox(header(["<DIR_1>", "<CWD>/sub/deeper", "<DIR_1>/x"]), undefined);
    try {
      const dir1 = (sandbox.placeholders["<DIR_1>"] as string[])[0]!;
      expect(path.dirname(dir1)).toBe(path.dirname(sandbox.workspace));
      expect(statSync(dir1).isDirectory()).toBe(true);
      expect(statSync(path.join(dir1, "x")).isDirectory()).toBe(true);
      expect(statSync(path.join(sandbox.workspace, "sub/deeper")).isDirectory()).toBe(true);
    } catch (error) {
      await sandbox.dispose();
      throw error;
    }
    await sandbox.dispose();
    expect(existsSync(sandbox.workspace)).toBe(false);
  });

  it("stay inside the replay's own directory", async () => {
    await expect(prepareSandbox(header(["<CWD>/../../escape"]), undefined)).rejects.toThrow(
      /not inside the replay's folders/,
    );
    await expect(prepareSandbox(header(["/etc/x"]), undefined)).rejects.toThrow(/not inside the replay's folders/);
    // A folder inside a placeholder the header does not create.
    await expect(prepareSandbox(header(["<DIR_2>/x"]), undefined)).rejects.toThrow(/not inside the replay's folders/);
  });
});
