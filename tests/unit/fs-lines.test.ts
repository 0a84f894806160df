// The editor-buffer slicer and the streaming disk reader must agree on every window.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sliceText } from "../../src/editor-files/access/lines.js";
import { readLocal } from "../../src/editor-files/access/local.js";

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "fs-lines-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const samples = [
  "",
  "\n",
  "\n\n",
  "a",
  "a\n",
  "a\nb",
  "a\r\nb\r\n",
  "\r\n\r",
  "é\n日本\n🌍",
  "x\n\ny\n\n",
  "\uFEFFbom\n",
];

describe("sliceText and readLocal agree", () => {
  it.each(samples.map((s) => [JSON.stringify(s), s]))("%s", async (_name, text) => {
    const f = path.join(dir, "s.txt");
    fs.writeFileSync(f, text);
    for (let line = 1; line <= 5; line++) {
      for (const limit of [undefined, 1, 2, 3]) {
        const w = { line, limit };
        const a = sliceText(text, w);
        const b = await readLocal(f, w);
        expect(b, JSON.stringify(w)).toEqual(a);
        const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
        expect(a.total_lines).toBe(lines.length);
        expect(a.content).toBe(lines.slice(line - 1, limit === undefined ? undefined : line - 1 + limit).join(""));
      }
    }
  });

  it("pseudo-random texts across the 1 MiB chunk boundary", async () => {
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const alphabet = ["a", "\n", "\r\n", "é", "🌍", "日"];
    const f = path.join(dir, "r.txt");
    for (let round = 0; round < 3; round++) {
      const parts: string[] = ["z".repeat((1 << 20) - 40)];
      for (let i = 0; i < 80; i++) parts.push(alphabet[rnd(alphabet.length)] ?? "a");
      const text = parts.join("");
      fs.writeFileSync(f, text);
      const total = sliceText(text, { line: 1 }).total_lines;
      for (let line = 1; line <= total + 1; line++) {
        const w = { line, limit: 1 + rnd(3) };
        expect(await readLocal(f, w)).toEqual(sliceText(text, w));
      }
    }
  });
});
