import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end tests each start a real codex; two cores, so keep parallelism modest.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
