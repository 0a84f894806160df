import { defineConfig } from "vitest/config";

/**
 * Tests that push a lot through the adapter (100 MB outputs, a fuzz storm) or still measure its
 * memory (300 turns): run alone, after everything else, one file at a time (one fork). Beside a
 * full parallel run, memory figures measured the machine's load (a GC that falls behind on two
 * busy cores), not the adapter: each failed about one full run in four.
 */
const MEMORY = ["tests/e2e/fuzz.test.ts", "tests/e2e/terminal.test.ts", "tests/e2e/load.test.ts"];

export default defineConfig({
  test: {
    globalSetup: ["tests/support/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end tests each start a real codex; two cores, so keep parallelism modest.
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      {
        extends: true,
        test: { name: "main", include: ["tests/**/*.test.ts"], exclude: MEMORY, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: "memory",
          include: MEMORY,
          poolOptions: { forks: { singleFork: true } },
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
