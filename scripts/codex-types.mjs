// npm run codex:types: regenerates src/codex/generated/ from the pinned codex binary
// (`codex app-server generate-ts --experimental`), so the app-server's messages are typed from
// Codex's own schema. Type-only output, committed; rerun after bumping @openai/codex.
// The generator writes extension-less relative imports; NodeNext resolution wants ".js", so
// they are rewritten (a folder import "./v2" becomes "./v2/index.js").
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, cpSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "src/codex/generated");
const codex = process.env.CODEX_PATH ?? findNative();

function findNative() {
  const base = path.join(root, "node_modules/@openai");
  for (const pkg of readdirSync(base).filter((d) => d.startsWith("codex-"))) {
    const vendor = path.join(base, pkg, "vendor");
    for (const triple of readdirSync(vendor)) {
      const bin = path.join(vendor, triple, "bin", process.platform === "win32" ? "codex.exe" : "codex");
      if (existsSync(bin)) return bin;
    }
  }
  throw new Error("no native codex binary under node_modules/@openai; set CODEX_PATH");
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "codex-types-"));
try {
  execFileSync(codex, ["app-server", "generate-ts", "--experimental", "--out", tmp], { stdio: ["ignore", "ignore", "inherit"] });
  const version = execFileSync(codex, ["--version"], { encoding: "utf8" }).trim();
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (name.endsWith(".ts")) {
        const text = readFileSync(file, "utf8").replace(/from "(\.{1,2}\/[^"]*)"/g, (_, spec) => {
          const target = path.resolve(path.dirname(file), spec);
          return existsSync(target) && statSync(target).isDirectory() ? `from "${spec}/index.js"` : `from "${spec}.js"`;
        });
        writeFileSync(file, text);
      }
    }
  };
  walk(tmp);
  writeFileSync(path.join(tmp, "VERSION"), `${version}\n`);
  rmSync(out, { recursive: true, force: true });
  cpSync(tmp, out, { recursive: true });
  process.stderr.write(`codex:types: ${version} -> ${path.relative(root, out)}\n`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
