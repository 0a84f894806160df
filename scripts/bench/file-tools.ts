// Benchmarks of the embedded file tools, called through the real MCP endpoint (MCP SDK client ->
// Streamable HTTP on 127.0.0.1 -> src/editor-files/endpoint -> src/editor-files/access), on both backends:
//  - local:  node:fs (no editor capability)
//  - client: an in-process fake editor (EditorFiles) whose content is the file on disk
// Figures: a 1 MB write (seed target: under 100 ms), a read of lines 1,000,000-1,000,099 of a
// 200 MB file, each with wall time (median) and peak RSS growth, and a 200-hunk apply_patch on a
// 1 MiB file (target: under 50 ms plus the client's round trips, one read and one write). Prints nothing itself: the bench
// runner (scripts/bench/index.ts) prints the rows. Run alone: `npx tsx scripts/bench/file-tools.ts`.
import fs from "node:fs";
import { rm, mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pino } from "pino";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createFileAccess, createLocalFiles, type EditorFiles } from "../../src/editor-files/access/index.js";
import { FileToolsServer, callFileTool } from "../../src/editor-files/endpoint/index.js";
import { median } from "./proc.js";

type Row = { name: string; value: number; unit: string; note?: string };

const WRITE_BYTES = 1024 * 1024;
const WRITE_RUNS = Number(process.env.BENCH_RUNS ?? 9);
const READ_RUNS = 3;
const BIG_LINES = 3_276_800; // 64-byte lines: 200 MiB
const MiB = 1024 * 1024;

/** Runs `fn` while sampling RSS every 2 ms; returns the time taken and the peak RSS above the start. */
async function measure(fn: () => Promise<unknown>): Promise<{ ms: number; rssGrowthMiB: number }> {
  global.gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  const t = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - t;
  peak = Math.max(peak, process.memoryUsage.rss());
  return { ms, rssGrowthMiB: (peak - base) / MiB };
}

function writeBigFile(file: string): void {
  const fd = fs.openSync(file, "w");
  try {
    let n = 1;
    const perChunk = 16384; // 1 MiB per write
    for (let chunk = 0; chunk < BIG_LINES / perChunk; chunk++) {
      const parts: string[] = [];
      for (let i = 0; i < perChunk; i++) parts.push(`${String(n++).padStart(10, "0")} ${"x".repeat(52)}\n`);
      fs.writeSync(fd, parts.join(""));
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** A fake editor whose buffers are the files on disk (windowed reads served by streaming the disk). */
function diskBackedEditor(): EditorFiles & { writes: number } {
  const disk = createLocalFiles({ logger: pino({ level: "silent" }) });
  const editor = {
    writes: 0,
    async readTextFile(p: { path: string; line?: number; limit?: number }) {
      if (p.line === undefined && p.limit === undefined) return { content: await readFile(p.path, "utf8") };
      const r = await disk.read({
        path: p.path,
        ...(p.line !== undefined ? { line: p.line } : {}),
        ...(p.limit !== undefined ? { limit: p.limit } : {}),
      });
      return { content: r.content };
    },
    async writeTextFile(_p: { path: string; content: string }) {
      editor.writes++; // an editor puts the text in its buffer; nothing to do here
    },
  };
  return editor;
}

type Backend = "local" | "client";

export async function benchFileTools(): Promise<Row[]> {
  const silent = pino({ level: "silent" });
  const dir = await mkdtemp(path.join(os.tmpdir(), "cca-bench-files-"));
  const server = new FileToolsServer({ log: silent });
  const clients: Client[] = [];
  const rows: Row[] = [];
  try {
    const big = path.join(dir, "big.txt");
    writeBigFile(big);
    const content = "a".repeat(63) + "\n";
    const oneMiB = content.repeat(WRITE_BYTES / content.length);

    for (const backend of ["local", "client"] as Backend[]) {
      const editor = backend === "client" ? diskBackedEditor() : undefined;
      const access = createFileAccess({
        ...(editor ? { editor } : {}),
        logger: silent,
        policy: { mode: () => "full-access", roots: () => [dir] },
      });
      const endpoint = await server.register(backend);
      server.bind(backend, (name, args) => callFileTool(access, name, args, { cwd: dir }));
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: endpoint.headers } }),
      );
      clients.push(client);
      const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
        const r = (await client.callTool({ name, arguments: args })) as {
          isError?: boolean;
          structuredContent?: Record<string, unknown>;
        };
        if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.structuredContent)}`);
        return r.structuredContent ?? {};
      };

      // 1 MB write: the first creates the file, the others overwrite it (old text read for the diff).
      const target = path.join(dir, `write-${backend}.txt`);
      await writeFile(target, "");
      await call("write_text_file", { path: target, content: oneMiB }); // warm-up
      const times: number[] = [];
      let writeRss = 0;
      for (let i = 0; i < WRITE_RUNS; i++) {
        const m = await measure(() => call("write_text_file", { path: target, content: oneMiB }));
        times.push(m.ms);
        writeRss = Math.max(writeRss, m.rssGrowthMiB);
      }
      rows.push({
        name: `write_text_file 1 MiB [${backend}]`,
        value: round(median(times)),
        unit: "ms",
        note: `median of ${WRITE_RUNS}, through MCP; target < 100 ms`,
      });
      rows.push({ name: `write_text_file 1 MiB peak RSS growth [${backend}]`, value: round(writeRss), unit: "MiB" });

      // Lines 1,000,000-1,000,099 of a 200 MiB file.
      const readTimes: number[] = [];
      let readRss = 0;
      for (let i = 0; i < READ_RUNS; i++) {
        const m = await measure(async () => {
          const r = await call("read_text_file", { path: big, line: 1_000_000, limit: 100 });
          if (r.returned_lines !== 100 || r.total_lines !== BIG_LINES || r.next_line !== 1_000_100)
            throw new Error(`bad read: ${JSON.stringify({ ...r, content: undefined })}`);
        });
        readTimes.push(m.ms);
        readRss = Math.max(readRss, m.rssGrowthMiB);
      }
      rows.push({
        name: `read_text_file lines 1,000,000-1,000,099 of 200 MiB [${backend}]`,
        value: round(median(readTimes)),
        unit: "ms",
        note: `median of ${READ_RUNS}, through MCP`,
      });
      rows.push({
        name: `read_text_file 200 MiB window peak RSS growth [${backend}]`,
        value: round(readRss),
        unit: "MiB",
        note: "contract: < 64 MiB",
      });

      // apply_patch: 200 hunks over a 1 MiB file, alternately forward and back (the local file changes).
      const patched = path.join(dir, `patch-${backend}.txt`);
      const { text, forward, back } = patchFixture();
      await writeFile(patched, text);
      const patchTimes: number[] = [];
      for (let i = 0; i <= WRITE_RUNS; i++) {
        const input = backend === "local" && i % 2 === 1 ? back(patched) : forward(patched);
        const m = await measure(async () => {
          const r = await call("apply_patch", { input });
          if (r.success !== true) throw new Error("patch failed");
        });
        if (i > 0) patchTimes.push(m.ms); // the first is a warm-up
      }
      rows.push({
        name: `apply_patch 200 hunks on 1 MiB [${backend}]`,
        value: round(median(patchTimes)),
        unit: "ms",
        note: `median of ${WRITE_RUNS}, through MCP${backend === "client" ? ", with 1 read + 1 write to the (in-process) editor" : ""}; target < 50 ms + round trips`,
      });
    }
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

/** A 1 MiB text of 64-byte lines and two 200-hunk patches: one changing a line per hunk, one changing it back. */
function patchFixture(): { text: string; forward: (file: string) => string; back: (file: string) => string } {
  const lines = Array.from({ length: MiB / 64 }, (_, i) => `${String(i).padStart(8, "0")} ${"y".repeat(54)}`);
  const text = `${lines.join("\n")}\n`;
  const build = (file: string, dir: 1 | -1): string => {
    const body = [`*** Update File: ${file}`];
    for (let h = 0; h < 200; h++) {
      const at = 10 + h * 80;
      const old = lines[at]!;
      const changed = `${old.slice(0, 9)}patched ${h}`;
      body.push(
        "@@",
        ` ${lines[at - 2]}`,
        ` ${lines[at - 1]}`,
        `-${dir === 1 ? old : changed}`,
        `+${dir === 1 ? changed : old}`,
        ` ${lines[at + 1]}`,
        ` ${lines[at + 2]}`,
      );
    }
    return ["*** Begin Patch", ...body, "*** End Patch"].join("\n");
  };
  return { text, forward: (f) => build(f, 1), back: (f) => build(f, -1) };
}

function round(v: number): number {
  return Math.round(v * 10) / 10;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await benchFileTools())
    process.stdout.write(
      `${row.name.padEnd(70)} ${String(row.value).padStart(8)} ${row.unit}${row.note ? `  (${row.note})` : ""}\n`,
    );
}
