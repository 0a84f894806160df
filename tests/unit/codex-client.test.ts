// AppServerClient and CodexHost against scripted stand-in children (unit tests of src/codex).
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import pino from "pino";
import { AppServerClient, CodexHost, prestartAppServer } from "../../src/codex/index.js";
import { waitFor } from "../support/wait-for.js";

const log = pino({ level: "silent" });

/**
 * A child that prints `lines` (one per 10 ms), then says PRINTED on stderr, then answers request
 * id 1 and stays up. (Its stdout is a pipe: a write there is in the pipe when it returns.)
 */
function fakeChild(lines: string[]) {
  const script = `
    const lines = ${JSON.stringify(lines)};
    let i = 0;
    const t = setInterval(() => {
      if (i < lines.length) return void process.stdout.write(lines[i++] + "\\n");
      clearInterval(t);
      process.stderr.write("PRINTED\\n");
    }, 10);
    process.stdin.on("data", (d) => { for (const l of String(d).split("\\n").filter(Boolean)) { const m = JSON.parse(l); if (m.id !== undefined) process.stdout.write(JSON.stringify({ id: m.id, result: { ok: true } }) + "\\n"); } });
    process.stdin.on("end", () => process.exit(0));
  `;
  return spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "pipe"] });
}

let clients: AppServerClient[] = [];
afterEach(async () => {
  for (const c of clients) await c.close(500);
  clients = [];
});

describe("AppServerClient", () => {
  it("keeps routing after a listener throws", async () => {
    const client = new AppServerClient(
      fakeChild([
        // Malformed (the plan holds a null): Codex's schema rejects it, no listener sees it.
        JSON.stringify({ method: "turn/plan/updated", params: { threadId: "t1", turnId: "u1", plan: [null] } }),
        "this line is not json",
        JSON.stringify({
          method: "turn/plan/updated",
          params: { threadId: "t1", turnId: "u1", plan: [{ step: "one", status: "pending" }] },
        }),
        JSON.stringify({
          method: "item/agentMessage/delta",
          params: { threadId: "t1", turnId: "u1", itemId: "m1", delta: "still alive" },
        }),
      ]),
      log,
    );
    clients.push(client);
    const seen: string[] = [];
    const done = new Promise<void>((resolve) => {
      client.attachThread("t1", {
        notification: (n) => {
          seen.push(n.method);
          // What a bridge bug looks like.
          if (n.method === "turn/plan/updated") throw new Error(`cannot show ${n.params.plan.length} steps`);
          if (n.method === "item/agentMessage/delta") resolve();
        },
        request: async () => ({}),
      });
    });
    await done;
    expect(seen).toEqual(["turn/plan/updated", "item/agentMessage/delta"]);
    expect(client.alive).toBe(true);
    await expect(client.request("ping", {})).resolves.toEqual({ ok: true });
  });

  it("an error on codex's stdout or stderr pipe is logged, not thrown (an unhandled stream error ends Node)", async () => {
    const child = fakeChild([]);
    const client = new AppServerClient(child, log);
    clients.push(client);
    // With no listener, emit("error") throws: that is what would end the process.
    expect(() => child.stdout.emit("error", new Error("EPIPE-like"))).not.toThrow();
    expect(() => child.stderr.emit("error", new Error("EPIPE-like"))).not.toThrow();
    await expect(client.request("ping", {})).resolves.toEqual({ ok: true });
  });

  it("holds codex's output while told to (nothing read, never counted as silence), then reads on in order", async () => {
    const child = fakeChild(Array.from({ length: 30 }, (_, i) => JSON.stringify({ method: "tick", params: { n: i } })));
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer | string) => (stderr += String(chunk)));
    const client = new AppServerClient(child, log);
    clients.push(client);
    const seen: number[] = [];
    let sawLast!: () => void;
    const lastSeen = new Promise<void>((resolve) => (sawLast = resolve));
    client.onNotification((_method, params) => {
      seen.push((params as { n: number }).n);
      if (seen.length === 30) sawLast();
    });
    client.holdOutput(true);
    // Everything is in the pipe, 300 ms of printing that a reader would have taken line by line meanwhile.
    await waitFor(() => stderr.includes("PRINTED"), "the child to have printed everything");
    expect(seen).toEqual([]);
    expect(client.silentForMs).toBe(0);
    client.holdOutput(false);
    await lastSeen;
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it("fails pending calls with the exit reason when the child dies", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => process.kill(process.pid, 'SIGKILL'), 50)"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    const client = new AppServerClient(child, log);
    await expect(client.request("never/answered", {})).rejects.toThrow(/killed by SIGKILL/);
    expect(client.alive).toBe(false);
  });
});

describe("CodexHost", () => {
  it("an exit listener that throws costs that listener only: the others hear the exit, and nothing is left as an unhandled rejection", async () => {
    // A stand-in codex: answers initialize, then exits.
    const script = `process.stdin.on("data", (d) => { for (const l of String(d).split("\\n").filter(Boolean)) { const m = JSON.parse(l); if (m.id !== undefined) { process.stdout.write(JSON.stringify({ id: m.id, result: {} }) + "\\n"); setTimeout(() => process.exit(3), 20); } } });`;
    const host = new CodexHost(
      {
        clientInfo: { name: "t", title: "t", version: "1" },
        command: { file: process.execPath, args: ["-e", script], via: "env" },
      },
      log,
    );
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const heard: string[] = [];
      host.onExit(() => {
        throw new Error("a feature's bug in its exit listener");
      });
      const second = new Promise<void>((resolve) => host.onExit((exit) => (heard.push(exit.reason), resolve())));
      host.start();
      await host.client();
      await second;
      // One more turn of the event loop: an unhandled rejection is reported after the microtasks.
      await new Promise((r) => setImmediate(r));
      expect(heard).toEqual(["exit code 3"]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
      await host.close();
    }
  });

  it("reports a codex that cannot be located on every client() call instead of throwing from start()", async () => {
    const saved = process.env.CODEX_PATH;
    process.env.CODEX_PATH = "relative/codex";
    try {
      const host = new CodexHost({ clientInfo: { name: "t", title: "t", version: "1" } }, log);
      expect(() => host.start()).not.toThrow();
      await expect(host.client()).rejects.toThrow(/CODEX_PATH must be an absolute path/);
    } finally {
      if (saved === undefined) delete process.env.CODEX_PATH;
      else process.env.CODEX_PATH = saved;
    }
  });
});

/**
 * A stand-in codex, run by node: says on stderr what it is sent ("GOT <method> <id>") and answers
 * each request with `resultOf`, a JS expression over the request `m`.
 */
function standInCodex(resultOf: string): { file: string; args: string[]; via: "env" } {
  const script = `
    let buffered = "";
    process.stdin.on("data", (d) => {
      buffered += d;
      let nl;
      while ((nl = buffered.indexOf("\\n")) >= 0) {
        const m = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        process.stderr.write("GOT " + m.method + " " + (m.id ?? "-") + "\\n");
        if (m.id !== undefined) process.stdout.write(JSON.stringify({ id: m.id, result: ${resultOf} }) + "\\n");
      }
    });
    process.stdin.on("end", () => process.exit(0));
  `;
  return { file: process.execPath, args: ["-e", script], via: "env" };
}

describe("codex's initialize, written as it is spawned (issue 30)", () => {
  it("the bin's early initialize is the one the host waits on: codex is asked once, and the client's own ids do not collide with it", async () => {
    // A stand-in codex that says on stderr what it is sent, and answers each request with its id.
    const command = standInCodex(
      `m.method === "initialize" ? { codexHome: "/stand-in/home", echo: m.params } : { ok: m.id }`,
    );
    const clientInfo = { name: "codex-cli-acp", title: "t", version: "9.9.9" };
    const prestarted = prestartAppServer(command, clientInfo);
    let heard = "";
    prestarted.child.stderr!.on("data", (c: Buffer) => (heard += c.toString()));
    // Codex reads its initialize while nothing of the adapter is loaded yet.
    await waitFor(() => heard.includes("GOT initialize 0"), "the early initialize to reach codex");
    const host = new CodexHost({ clientInfo, prestarted }, log);
    host.start();
    const client = await host.client();
    expect(host.codexHome).toBe("/stand-in/home");
    expect(await client.request("thread/list", {})).toEqual({ ok: 1 });
    await waitFor(() => heard.includes("GOT initialized -"), "the initialized notification");
    expect(heard.match(/GOT initialize /g)).toHaveLength(1);
    await host.close();
  });

  it("a config/read written right behind it is answered to the first reader of that folder as its files were, once", async () => {
    // The stand-in answers initialize, and config/read with the cwd it was asked about.
    const command = standInCodex(
      `m.method === "initialize" ? { codexHome: "/stand-in/home" } : m.method === "config/read" ? { config: { model: m.params.cwd }, origins: {}, layers: null } : { ok: m.id }`,
    );
    const clientInfo = { name: "codex-cli-acp", title: "t", version: "9.9.9" };
    const prestarted = prestartAppServer(command, clientInfo, {
      configFor: () => ({ cwd: "/project", fingerprint: "fp-1" }),
    });
    let heard = "";
    prestarted.child.stderr!.on("data", (c: Buffer) => (heard += c.toString()));
    await waitFor(() => heard.includes("GOT config/read -1"), "the early config/read to reach codex");
    expect(heard.indexOf("GOT initialize 0")).toBeLessThan(heard.indexOf("GOT config/read -1"));
    const host = new CodexHost({ clientInfo, prestarted }, log);
    host.start();
    await host.client();
    // Another folder, or the same one after its files changed: not this answer.
    expect(host.takePrefetchedConfig("/elsewhere", "fp-1")).toBeUndefined();
    expect(host.takePrefetchedConfig("/project", "fp-1")).toBeDefined();
    expect(host.takePrefetchedConfig("/project", "fp-1")).toBeUndefined();
    await host.close();

    const stale = prestartAppServer(command, clientInfo, {
      configFor: () => ({ cwd: "/project", fingerprint: "fp-1" }),
    });
    const again = new CodexHost({ clientInfo, prestarted: stale }, log);
    again.start();
    await again.client();
    expect(again.takePrefetchedConfig("/project", "fp-2")).toBeUndefined();
    // Dropped once found stale, not kept for a later reader.
    expect(again.takePrefetchedConfig("/project", "fp-1")).toBeUndefined();
    await again.close();
  });

  it("the answer it gives is codex's, checked like any config/read result", async () => {
    const command = standInCodex(
      `m.method === "initialize" ? { codexHome: "/h" } : { config: { approval_policy: "never" }, origins: {}, layers: null }`,
    );
    const prestarted = prestartAppServer(
      command,
      { name: "codex-cli-acp", title: "t", version: "1" },
      { configFor: () => ({ cwd: "/p", fingerprint: "f" }) },
    );
    const host = new CodexHost({ clientInfo: { name: "codex-cli-acp", title: "t", version: "1" }, prestarted }, log);
    host.start();
    await host.client();
    await expect(host.takePrefetchedConfig("/p", "f")).resolves.toMatchObject({ config: { approval_policy: "never" } });
    await host.close();
  });
});
