// scripts/bench/node-env.ts, the helper behind the bench's start-up row "without
// NODE_EXTRA_CA_CERTS": the environment it gives takes that variable out and keeps the rest, and
// the note appears only where the machine sets it. That index.ts hands every side this environment
// is read in review, not tested (the bench runs as it is imported). No time is asserted.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  bareNodeStart,
  EXTRA_CA_VAR,
  extraCaCertsNote,
  extraCaCertsSet,
  withoutExtraCaCerts,
} from "../../scripts/bench/node-env.js";

describe("bench: NODE_EXTRA_CA_CERTS", () => {
  it("takes the variable out and keeps the rest, without changing the environment it was given", () => {
    const env = { PATH: "/usr/bin", CODEX_HOME: "/tmp/home", [EXTRA_CA_VAR]: "/etc/ssl/certs/ca-certificates.crt" };
    const stripped = withoutExtraCaCerts(env);
    expect(stripped).toEqual({ PATH: "/usr/bin", CODEX_HOME: "/tmp/home" });
    expect(env[EXTRA_CA_VAR]).toBe("/etc/ssl/certs/ca-certificates.crt");
    expect(extraCaCertsSet(env)).toBe(true);
    expect(extraCaCertsSet(stripped)).toBe(false);
    expect(extraCaCertsSet({ [EXTRA_CA_VAR]: "" })).toBe(false);
  });

  it("a process started with the stripped environment does not see the variable", () => {
    const env = { ...process.env, [EXTRA_CA_VAR]: "/nonexistent/extra-ca.pem", CCA_PROBE: "kept" };
    const script = `process.stdout.write(JSON.stringify([process.env.${EXTRA_CA_VAR} ?? null, process.env.CCA_PROBE ?? null]))`;
    const seen = (e: NodeJS.ProcessEnv) =>
      JSON.parse(
        execFileSync(process.execPath, ["-e", script], {
          env: e,
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        }),
      ) as unknown;
    expect(seen(env)).toEqual(["/nonexistent/extra-ca.pem", "kept"]);
    expect(seen(withoutExtraCaCerts(env))).toEqual([null, "kept"]);
  });

  it("times a bare node both ways, and notes it only where the machine sets the variable", () => {
    const figures = bareNodeStart(1, { ...process.env, [EXTRA_CA_VAR]: "/nonexistent/extra-ca.pem" });
    expect(figures.asIs).toBeGreaterThan(0);
    expect(figures.without).toBeGreaterThan(0);
    const note = extraCaCertsNote(1);
    if (extraCaCertsSet()) expect(note).toContain(`without ${EXTRA_CA_VAR}`);
    else expect(note).toBeUndefined();
  });
});
