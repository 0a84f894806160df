// src/platform: the Windows and macOS branches, run here on Linux with the platform passed in
// (nothing global is changed). What the real hosts do is not run here: see docs/architecture.md,
// "Platforms".
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import {
  batchFileLaunch,
  isInsidePath,
  isWindowsDevicePath,
  normalizedDirectory,
  pathsOf,
  processActivity,
  processStopper,
  quoteWindowsArgument,
} from "../../src/platform/index.js";

describe("pathsOf", () => {
  it("is win32's path module on Windows and POSIX's elsewhere (this host's on Linux)", () => {
    expect(pathsOf("win32")).toBe(path.win32);
    expect(pathsOf("darwin")).toBe(path.posix);
    expect(pathsOf("linux")).toBe(path);
  });
});

describe("isInsidePath", () => {
  it("POSIX (Linux, macOS): exact, by whole components", () => {
    for (const platform of ["linux", "darwin"] as const) {
      expect(isInsidePath("/ws/a/b.txt", "/ws", platform)).toBe(true);
      expect(isInsidePath("/ws", "/ws", platform)).toBe(true);
      expect(isInsidePath("/ws/", "/ws", platform)).toBe(true);
      expect(isInsidePath("/wsx/a", "/ws", platform)).toBe(false);
      expect(isInsidePath("/ws/../etc", "/ws", platform)).toBe(false);
      expect(isInsidePath("/", "/ws", platform)).toBe(false);
      // Case is the file system's business: callers realpath both sides first (see paths.ts).
      expect(isInsidePath("/WS/a", "/ws", platform)).toBe(false);
    }
  });

  it("Windows: case-insensitive, either separator, never across drives or shares", () => {
    expect(isInsidePath("C:\\ws\\a.txt", "C:\\ws", "win32")).toBe(true);
    expect(isInsidePath("c:\\WS\\Src\\a.txt", "C:\\ws", "win32")).toBe(true);
    expect(isInsidePath("c:\\ws", "C:\\WS", "win32")).toBe(true);
    expect(isInsidePath("C:/ws/a.txt", "C:\\ws", "win32")).toBe(true);
    expect(isInsidePath("C:\\wsx\\a.txt", "C:\\ws", "win32")).toBe(false);
    expect(isInsidePath("C:\\ws\\..\\x.txt", "C:\\ws", "win32")).toBe(false);
    expect(isInsidePath("D:\\ws\\a.txt", "C:\\ws", "win32")).toBe(false);
    expect(isInsidePath("\\\\srv\\share\\ws\\a.txt", "\\\\srv\\share\\ws", "win32")).toBe(true);
    expect(isInsidePath("\\\\srv\\other\\ws\\a.txt", "\\\\srv\\share\\ws", "win32")).toBe(false);
    expect(isInsidePath("C:\\ws\\a.txt", "\\\\srv\\share", "win32")).toBe(false);
  });
});

describe("normalizedDirectory", () => {
  it("drops a trailing separator but never a root's", () => {
    expect(normalizedDirectory("/ws/", "linux")).toBe("/ws");
    expect(normalizedDirectory("/ws/./a/..", "linux")).toBe("/ws");
    expect(normalizedDirectory("/", "linux")).toBe("/");
    expect(normalizedDirectory("C:\\", "win32")).toBe("C:\\");
    expect(normalizedDirectory("C:/", "win32")).toBe("C:\\");
    expect(normalizedDirectory("C:\\ws\\", "win32")).toBe("C:\\ws");
    expect(normalizedDirectory("C:/ws/sub/", "win32")).toBe("C:\\ws\\sub");
    expect(normalizedDirectory("\\\\srv\\share\\", "win32")).toBe("\\\\srv\\share\\");
    expect(normalizedDirectory("\\\\srv\\share\\ws\\", "win32")).toBe("\\\\srv\\share\\ws");
  });
});

describe("isWindowsDevicePath", () => {
  it.each([
    ["\\\\.\\pipe\\codex", true],
    ["//./PhysicalDrive0", true],
    ["\\\\?\\GLOBALROOT\\Device\\HarddiskVolume1\\x", true],
    ["C:\\ws\\nul", true],
    ["C:\\ws\\CON", true],
    ["C:\\ws\\con.txt", true],
    ["C:\\ws\\aux.ts", true],
    ["C:\\ws\\COM1", true],
    ["C:\\ws\\lpt9.log", true],
    ["C:\\ws\\nul. ", true],
    ["C:\\ws\\CONIN$", true],
    ["\\\\?\\C:\\ws\\a.txt", false],
    ["\\\\?\\UNC\\srv\\share\\a.txt", false],
    ["C:\\ws\\console.txt", false],
    ["C:\\ws\\null", false],
    ["C:\\ws\\com10", false],
    ["C:\\ws\\nul\\..\\a.txt", false],
    ["C:\\ws\\auxiliary.ts", false],
    ["\\\\srv\\share\\a.txt", false],
  ])("%s -> %s", (p, device) => {
    expect(isWindowsDevicePath(p)).toBe(device);
  });
});

describe("processStopper", () => {
  const child = (pid: number | undefined) => ({ pid, kill: vi.fn(() => true) });

  it("POSIX: the signal asked for, to the process", () => {
    for (const platform of ["linux", "darwin"] as const) {
      const taskkill = vi.fn();
      const c = child(42);
      processStopper(platform, taskkill)(c, "SIGTERM");
      processStopper(platform, taskkill)(c, "SIGKILL");
      expect(c.kill.mock.calls).toEqual([["SIGTERM"], ["SIGKILL"]]);
      expect(taskkill).not.toHaveBeenCalled();
    }
  });

  it("Windows: taskkill /T /F ends the whole tree; kill() only when taskkill fails", () => {
    const calls: Array<readonly string[]> = [];
    const c = child(42);
    processStopper("win32", (args, done) => {
      calls.push(args);
      done(true);
    })(c, "SIGTERM");
    expect(calls).toEqual([["/pid", "42", "/T", "/F"]]);
    expect(c.kill).not.toHaveBeenCalled();

    const failing = child(43);
    processStopper("win32", (_args, done) => done(false))(failing, "SIGKILL");
    expect(failing.kill).toHaveBeenCalledWith("SIGKILL");

    const neverStarted = child(undefined);
    const taskkill = vi.fn();
    processStopper("win32", taskkill)(neverStarted, "SIGTERM");
    expect(taskkill).not.toHaveBeenCalled();
    expect(neverStarted.kill).toHaveBeenCalledWith("SIGTERM");
  });
});

/** CommandLineToArgvW's reading of one argument (the documented rules, written independently). */
function argvOf(quoted: string): string[] {
  const out: string[] = [];
  let cur = "";
  let inQuotes = false;
  let started = false;
  for (let i = 0; i < quoted.length; i++) {
    const ch = quoted[i]!;
    if (ch === "\\") {
      let n = 0;
      while (quoted[i + n] === "\\") n++;
      if (quoted[i + n] === '"') {
        cur += "\\".repeat(Math.floor(n / 2));
        if (n % 2 === 1) cur += '"';
        else inQuotes = !inQuotes;
        i += n;
      } else {
        cur += "\\".repeat(n);
        i += n - 1;
      }
      started = true;
    } else if (ch === '"') {
      inQuotes = !inQuotes;
      started = true;
    } else if ((ch === " " || ch === "\t") && !inQuotes) {
      if (started) out.push(cur);
      cur = "";
      started = false;
    } else {
      cur += ch;
      started = true;
    }
  }
  if (started) out.push(cur);
  return out;
}

/** cmd.exe reading a line whose quotes are all escaped: every special character must come escaped; one caret is removed. */
function cmdReads(line: string): string {
  let out = "";
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "^") {
      out += line[++i] ?? "";
    } else if (/[\s()[\]{}%!^"`<>&|;,=*?~@]/.test(ch)) {
      if (ch === " ") {
        out += ch; // an argument separator: fine between arguments, checked by the caller
        continue;
      }
      throw new Error(`unescaped ${JSON.stringify(ch)} in ${line}`);
    } else out += ch;
  }
  return out;
}

const NASTY = [
  "app-server",
  "",
  "-c",
  'model="gpt-5.5"',
  "developer_instructions=be terse & exit",
  "a|b>c<d",
  "%PATH%",
  "!x!",
  "^caret^",
  "(parens)",
  "trailing\\",
  'back\\\\slash"quote',
  "C:\\Program Files\\x\\",
  "tab\there",
  "ünïcode ✓",
];

describe("quoteWindowsArgument", () => {
  it.each(NASTY)("the program reads %j back exactly", (arg) => {
    expect(argvOf(quoteWindowsArgument(arg))).toEqual([arg]);
  });
});

describe("batchFileLaunch", () => {
  it("runs cmd.exe without AutoRun or delayed expansion, the line verbatim", () => {
    const launch = batchFileLaunch(
      "C:\\Users\\me\\AppData\\Roaming\\npm\\codex.cmd",
      ["app-server"],
      "C:\\Windows\\system32\\cmd.exe",
    );
    expect(launch.file).toBe("C:\\Windows\\system32\\cmd.exe");
    expect(launch.args.slice(0, 4)).toEqual(["/d", "/s", "/v:off", "/c"]);
    expect(launch.windowsVerbatimArguments).toBe(true);
    expect(launch.args[4]).toMatch(/^".*"$/);
  });

  it("every argument survives cmd.exe's two readings (cmd /c, then the batch file's %*) with nothing special left unescaped", () => {
    const file = "C:\\Program Files (x86)\\tools & more\\codex.cmd";
    const launch = batchFileLaunch(file, NASTY);
    const line = launch.args[4]!.slice(1, -1); // cmd /s /c strips the outer quotes
    const [cmdFile, ...args] = line.split(/(?<!\^) /); // unescaped spaces separate the words
    expect(cmdReads(cmdFile!)).toBe(file);
    // Reading 1 (cmd /c) hands the batch file its arguments; reading 2 runs the line %* is put in.
    const delivered = args.map((a) => cmdReads(cmdReads(a)));
    expect(delivered.map((a) => argvOf(a))).toEqual(NASTY.map((a) => [a]));
  });

  it("refuses a line break, which cmd.exe would end the command at", () => {
    expect(() => batchFileLaunch("C:\\x\\codex.cmd", ["-c", "a=1\nb=2"])).toThrow(/line break/);
    expect(() => batchFileLaunch("C:\\x\\codex.cmd", ["x\r"])).toThrow(/line break/);
  });
});

describe("processActivity", () => {
  // proc(5): "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ..."
  const stat = (comm: string, state: string, utime: number, stime: number): string =>
    `4242 (${comm}) ${state} 1 4242 4242 0 -1 4194560 1200 0 0 0 ${utime} ${stime} 0 0 20 0 12 0 5000 100000 2000\n`;
  const reader = (text: string | undefined) => (file: string) => (file === "/proc/4242/stat" ? text : undefined);

  it("Linux: the state and the CPU time of all threads, from /proc/<pid>/stat", () => {
    expect(processActivity(4242, "linux", reader(stat("codex", "S", 120, 30)))).toEqual({
      stopped: false,
      cpuTicks: 150,
    });
    expect(processActivity(4242, "linux", reader(stat("codex", "R", 7, 0)))).toEqual({ stopped: false, cpuTicks: 7 });
    // A name with spaces and parentheses does not shift the fields.
    expect(processActivity(4242, "linux", reader(stat("a) (b c", "D", 1, 2)))).toEqual({ stopped: false, cpuTicks: 3 });
  });

  it("Linux: stopped (SIGSTOP, a tracer) and exited-unreaped processes are stopped", () => {
    for (const state of ["T", "t", "Z", "X"])
      expect(processActivity(4242, "linux", reader(stat("codex", state, 5, 5)))?.stopped).toBe(true);
  });

  it("Linux: nothing known when the file cannot be read or makes no sense", () => {
    expect(processActivity(4242, "linux", reader(undefined))).toBeUndefined();
    expect(processActivity(4242, "linux", reader("garbage"))).toBeUndefined();
    expect(processActivity(4242, "linux", reader("4242 (codex) S 1"))).toBeUndefined();
  });

  it("macOS and Windows: nothing known (no /proc), nothing read", () => {
    for (const platform of ["darwin", "win32"] as const) {
      let read = 0;
      expect(processActivity(4242, platform, () => (read++, stat("codex", "T", 1, 1)))).toBeUndefined();
      expect(read).toBe(0);
    }
  });

  it("this host (Linux): this process is running and has used CPU time", () => {
    const self = processActivity(process.pid);
    expect(self?.stopped).toBe(false);
    expect(self?.cpuTicks).toBeGreaterThan(0);
  });
});
