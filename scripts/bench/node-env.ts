// What the machine's environment adds to every Node side's start, before any of its own code runs.
// NODE_EXTRA_CA_CERTS makes Node read and parse that certificate file (and build its root store)
// as the process starts, whether or not it ever opens a TLS connection: a sandbox or a company
// proxy sets it; an editor passes it on to the agents it starts. No agent can avoid it from inside,
// so the bench shows the start both ways when it is set, and what it costs a bare `node`.
import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { median } from "./proc.js";

export const EXTRA_CA_VAR = "NODE_EXTRA_CA_CERTS";

/** True when the environment makes every Node process load extra CA certificates as it starts. */
export function extraCaCertsSet(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env[EXTRA_CA_VAR]);
}

/** `env` without NODE_EXTRA_CA_CERTS (what a machine without it gives the sides). */
export function withoutExtraCaCerts(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy[EXTRA_CA_VAR];
  return copy;
}

/** Medians of a bare `node -e 0`, with the environment as it is and without NODE_EXTRA_CA_CERTS, interleaved. */
export function bareNodeStart(runs: number, env: NodeJS.ProcessEnv = process.env): { asIs: number; without: number } {
  const asIs: number[] = [];
  const without: number[] = [];
  const stripped = withoutExtraCaCerts(env);
  const time = (e: NodeJS.ProcessEnv): number => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ["-e", "0"], { env: e, stdio: "ignore" });
    if (r.status !== 0) throw new Error(`node -e 0 exited with ${r.status ?? r.signal}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < runs; i++) {
    asIs.push(time(env));
    without.push(time(stripped));
  }
  return { asIs: median(asIs), without: median(without) };
}

/** The bench's note on it: what a bare node start costs here with and without the variable. */
export function extraCaCertsNote(runs: number): string | undefined {
  if (!extraCaCertsSet()) return undefined;
  const { asIs, without } = bareNodeStart(runs);
  return (
    `${EXTRA_CA_VAR} is set here (${process.env[EXTRA_CA_VAR]}): every Node side loads it as it starts; a bare ` +
    `\`node -e 0\` takes ${asIs.toFixed(1)} ms with it, ${without.toFixed(1)} without (medians of ${runs}). ` +
    `The "without ${EXTRA_CA_VAR}" start-up row gives every side the environment without it.`
  );
}
