// Finding and starting codex on each host (src/codex/locate.ts, src/codex/spawn.ts): the Windows
// and macOS installs are described to locateCodex as a host (platform, arch, files), so their
// branches run here on Linux. This host's own install is run for real by every e2e test.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { locateCodex, type LocateHost } from "../../src/codex/locate.js";
import { codexLaunch } from "../../src/codex/spawn.js";

/** A host with these files, and node_modules resolved as a flat npm install under `root`. */
function host(platform: NodeJS.Platform, arch: string, root: string, files: readonly string[]): LocateHost {
  const paths = platform === "win32" ? path.win32 : path.posix;
  const present = new Set(files);
  return {
    platform,
    arch,
    execPath: platform === "win32" ? "C:\\Program Files\\nodejs\\node.exe" : "/usr/local/bin/node",
    exists: (p) => present.has(p),
    resolve: (spec) => {
      const [scope, name] = spec.split("/");
      const found = paths.join(root, "node_modules", scope!, name!, "package.json");
      if (!present.has(found)) throw new Error(`Cannot find module '${spec}'`);
      return found;
    },
  };
}

describe("locateCodex on Windows", () => {
  const root = "C:\\Users\\me\\app";
  const pkg = `${root}\\node_modules\\@openai\\codex`;
  const native = `${root}\\node_modules\\@openai\\codex-win32-x64\\vendor\\x86_64-pc-windows-msvc\\bin\\codex.exe`;
  const installed = [
    `${pkg}\\package.json`,
    `${pkg}\\bin\\codex.js`,
    `${root}\\node_modules\\@openai\\codex-win32-x64\\package.json`,
    native,
  ];

  it("runs the native codex.exe of the platform package (x64 and arm64)", () => {
    expect(locateCodex({}, host("win32", "x64", root, installed))).toEqual({ file: native, args: [], via: "native" });
    const arm = native
      .replaceAll("win32-x64", "win32-arm64")
      .replace("x86_64-pc-windows-msvc", "aarch64-pc-windows-msvc");
    const armInstall = installed.map((f) =>
      f.replaceAll("win32-x64", "win32-arm64").replace("x86_64-pc-windows-msvc", "aarch64-pc-windows-msvc"),
    );
    expect(locateCodex({}, host("win32", "arm64", root, armInstall))).toEqual({ file: arm, args: [], via: "native" });
  });

  it("without the platform package, the Node launcher with this Node", () => {
    expect(locateCodex({}, host("win32", "x64", root, installed.slice(0, 2)))).toEqual({
      file: "C:\\Program Files\\nodejs\\node.exe",
      args: [`${pkg}\\bin\\codex.js`],
      via: "launcher",
    });
  });

  it("CODEX_PATH: a drive path or a UNC path is absolute; a bare name is not", () => {
    const exe = "C:\\tools\\codex.exe";
    expect(locateCodex({ CODEX_PATH: exe }, host("win32", "x64", root, [exe]))).toEqual({
      file: exe,
      args: [],
      via: "env",
    });
    const unc = "\\\\build\\tools\\codex.exe";
    expect(locateCodex({ CODEX_PATH: unc }, host("win32", "x64", root, [unc]))).toEqual({
      file: unc,
      args: [],
      via: "env",
    });
    expect(() => locateCodex({ CODEX_PATH: "codex.exe" }, host("win32", "x64", root, []))).toThrow(
      /must be an absolute path/,
    );
  });

  it("CODEX_PATH at npm's codex.cmd shim (global or a project's .bin): that package's launcher with this Node, no shell", () => {
    const shim = "C:\\Users\\me\\AppData\\Roaming\\npm\\codex.cmd";
    const launcher = "C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\@openai\\codex\\bin\\codex.js";
    expect(locateCodex({ CODEX_PATH: shim }, host("win32", "x64", root, [shim, launcher]))).toEqual({
      file: "C:\\Program Files\\nodejs\\node.exe",
      args: [launcher],
      via: "env",
    });
    const binShim = `${root}\\node_modules\\.bin\\codex.CMD`;
    expect(
      locateCodex({ CODEX_PATH: binShim }, host("win32", "x64", root, [binShim, `${pkg}\\bin\\codex.js`])),
    ).toEqual({
      file: "C:\\Program Files\\nodejs\\node.exe",
      args: [`${pkg}\\bin\\codex.js`],
      via: "env",
    });
  });

  it("CODEX_PATH at any other batch file: run through cmd.exe, every argument escaped", () => {
    const bat = "C:\\tools\\codex wrapper.bat";
    const command = locateCodex({ CODEX_PATH: bat }, host("win32", "x64", root, [bat]));
    expect(command).toEqual({ file: bat, args: [], via: "env", batch: true });
    const launch = codexLaunch(command, ["app-server", "-c", 'model="x & y"'], {
      ComSpec: "C:\\Windows\\system32\\cmd.exe",
    });
    expect(launch.file).toBe("C:\\Windows\\system32\\cmd.exe");
    expect(launch.args.slice(0, 4)).toEqual(["/d", "/s", "/v:off", "/c"]);
    expect(launch.windowsVerbatimArguments).toBe(true);
    expect(launch.args[4]).toContain("codex^ wrapper.bat");
    expect(launch.args[4]).not.toMatch(/[^^]&/); // no & that cmd.exe would run as a second command
    expect(() => codexLaunch(command, ["-c", "a\nb"], {})).toThrow(/line break/);
  });
});

describe("locateCodex on macOS", () => {
  it("runs the native binary of the darwin package (Apple silicon and Intel)", () => {
    const root = "/Users/me/app";
    for (const [arch, triple] of [
      ["arm64", "aarch64-apple-darwin"],
      ["x64", "x86_64-apple-darwin"],
    ] as const) {
      const dir = `${root}/node_modules/@openai/codex-darwin-${arch}`;
      const native = `${dir}/vendor/${triple}/bin/codex`;
      const files = [`${root}/node_modules/@openai/codex/package.json`, `${dir}/package.json`, native];
      expect(locateCodex({}, host("darwin", arch, root, files))).toEqual({ file: native, args: [], via: "native" });
    }
  });

  it("a .cmd CODEX_PATH is just a file off Windows (run as it is)", () => {
    const file = "/opt/codex.cmd";
    expect(locateCodex({ CODEX_PATH: file }, host("darwin", "arm64", "/", [file]))).toEqual({
      file,
      args: [],
      via: "env",
    });
  });
});

describe("codexLaunch", () => {
  it("anything but a batch file: the file and its arguments as they are (no shell)", () => {
    expect(codexLaunch({ file: "/usr/bin/codex", args: [], via: "env" }, ["app-server", "-c", "a=b & c"], {})).toEqual({
      file: "/usr/bin/codex",
      args: ["app-server", "-c", "a=b & c"],
    });
    expect(codexLaunch({ file: "/usr/bin/node", args: ["/x/codex.js"], via: "launcher" }, ["login"], {})).toEqual({
      file: "/usr/bin/node",
      args: ["/x/codex.js", "login"],
    });
  });
});
