// What the bench reads of a process from /proc (Linux), and the one statistic it prints.
import { readdir, readFile } from "node:fs/promises";

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** A process's resident memory now (VmRSS) or at its peak (VmHWM), in MB (MiB). */
export async function memoryMB(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** One process's parent and user + system CPU so far (ms); undefined once it is gone. */
async function stat(pid: number | string): Promise<{ ppid: number; cpuMs: number } | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  if (!text) return undefined;
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { ppid: Number(fields[1]), cpuMs: (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * TICK_MS };
}

/** CPU of one process so far (ms); 0 once it is gone. */
export async function cpuMs(pid: number): Promise<number> {
  return (await stat(pid))?.cpuMs ?? 0;
}

/** CPU of a process and every live descendant (codex under an adapter), ms. */
export async function treeCpuMs(root: number): Promise<number> {
  const procs = new Map<number, { ppid: number; cpuMs: number }>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const s = await stat(entry);
    if (s) procs.set(Number(entry), s);
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid; p; p = procs.get(p)?.ppid) if (p === root) return true;
    return false;
  };
  let total = 0;
  for (const [pid, s] of procs) if (inTree(pid)) total += s.cpuMs;
  return total;
}
