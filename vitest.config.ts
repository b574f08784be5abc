import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Suites that start real servers pick free ports, so files can run in parallel.
    pool: "forks",
    globalSetup: ["test/global-setup.ts"],
  },
});
