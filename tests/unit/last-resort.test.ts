// The serve mode's last resort (issue 26): an error nobody catches is logged and the process goes
// on (Node 20 ends on either by default, and with it every session). Run in a child process: the
// handlers are process-wide.
import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const tsxLoader = pathToFileURL(path.resolve(import.meta.dirname, "../../node_modules/tsx/dist/loader.mjs")).href;

describe("keepServingOnFault", () => {
  it("logs a throw in a timer and an unhandled rejection, and the process lives on", async () => {
    const child = spawn(
      process.execPath,
      ["--import", tsxLoader, path.resolve(import.meta.dirname, "../support/last-resort-child.ts")],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect({ code, stdout }).toEqual({ code: 0, stdout: "still serving\n" });
    const records = stderr
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; origin: string; err: string });
    expect(records.map((r) => [r.level, r.origin])).toEqual([
      [50, "uncaughtException"],
      [50, "unhandledRejection"],
    ]);
    expect(records[0]!.err).toContain("a throw in a timer nobody catches");
    expect(records[1]!.err).toContain("a rejection nobody handles");
  });
});
