import { configDefaults, defineConfig } from "vitest/config";
import { BROWSER, LISTED, REDIS, SLOW } from "./test/tiers.ts";

// Each tier spells these out rather than `extends: true`, which would run the global setup (the
// real content build) once per tier instead of once per run.
const shared = {
  testTimeout: 30_000,
  hookTimeout: 120_000,
  // Suites that start real servers pick free ports, so files can run in parallel.
  pool: "forks",
} as const;

export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    // Transformed modules kept on disk between runs (in node_modules, so a reinstall drops them):
    // a run after an unchanged one transforms nothing again.
    experimental: { fsModuleCache: true },
    // One project per tier (test/tiers.ts): `vitest run --project unit` runs the quick one.
    projects: [
      {
        test: {
          ...shared,
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...LISTED],
          setupFiles: ["test/helpers/unit-tier.ts"],
          // Its files share a worker's modules (imports paid once per worker, not once per file) and
          // run three at a time on two cores: a worker importing its next file, or waiting on a
          // child it started, leaves its core to the others (first run after npm ci 122.6 s with
          // two, 101–108 s with three; warm 80.0 and 75–83 s). vitest's default on two cores is one
          // worker. The other tiers keep both defaults: their crash suites and shared Redis want a
          // process of their own.
          isolate: false,
          maxWorkers: Number(process.env.UNIT_WORKERS ?? 3),
          sequence: { groupOrder: 0 },
        },
      },
      // A project with its own worker count runs in a group of its own (vitest requires it):
      // the unit tier first, then the other three side by side on one worker, as before.
      { test: { ...shared, name: "redis", include: REDIS, sequence: { groupOrder: 1 } } },
      { test: { ...shared, name: "browser", include: BROWSER, sequence: { groupOrder: 1 } } },
      { test: { ...shared, name: "slow", include: SLOW, sequence: { groupOrder: 1 } } },
    ],
  },
});
