// The ACP registry entry (registry/codex-cli-acp) stays in step with the package it installs.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const repo = path.resolve(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")) as {
  name: string;
  version: string;
  license: string;
};
const manifest = JSON.parse(readFileSync(path.join(repo, "registry/codex-cli-acp/agent.json"), "utf8")) as Record<
  string,
  unknown
>;

describe("registry entry", () => {
  it("has the registry's required fields, and installs this version of this package", () => {
    expect(manifest).toMatchObject({
      id: "codex-cli-acp",
      name: expect.any(String),
      description: expect.any(String),
      authors: expect.any(Array),
      license: pkg.license,
      version: pkg.version,
    });
    expect(manifest.id).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(manifest.distribution).toEqual({ npx: { package: `${pkg.name}@${pkg.version}` } });
  });
  it("has a 16x16 SVG icon that follows the theme", () => {
    const svg = readFileSync(path.join(repo, "registry/codex-cli-acp/icon.svg"), "utf8");
    expect(svg).toMatch(/^<svg [^>]*width="16" height="16" viewBox="0 0 16 16"/);
    expect(svg).toContain("currentColor");
  });
});
