/**
 * The test tiers, declared here and nowhere else (vitest.config.ts makes one vitest project of
 * each). A test file is in the unit tier unless it is listed below. `npm test` runs every tier;
 * `npm run test:unit` runs the unit tier alone: no Redis, no browser, nothing slow. In the unit
 * tier a test that connects to Redis, starts a redis-server or Chromium, or hands a child process
 * a Redis locator fails at once (test/helpers/unit-tier.ts), and test/contract/test-tiers.test.ts
 * fails on an unlisted file that names Redis or a browser, so a new one cannot land there unseen.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Needs Redis: the local server on 127.0.0.1:6379, or a Cluster or Sentinel set of its own. */
export const REDIS = [
  "test/cluster/client-limits.e2e.test.ts",
  "test/cluster/failover.e2e.test.ts",
  "test/cluster/per-use.e2e.test.ts",
  "test/cluster/publish.e2e.test.ts",
  "test/cluster/quota.e2e.test.ts",
  "test/cluster/redis-commands.e2e.test.ts",
  "test/cluster/redis-fault.e2e.test.ts",
  "test/growth/cohort-cap.e2e.test.ts",
  "test/growth/proposed-verticals.e2e.test.ts",
  "test/growth/seat-ledger.test.ts",
  "test/growth/shared-state.e2e.test.ts",
  "test/hardening/admin-burst.e2e.test.ts",
  "test/hardening/client-networks.e2e.test.ts",
  "test/hardening/cursor-secret.e2e.test.ts",
  "test/hardening/limiter-bursts.e2e.test.ts",
  "test/payments/agent-network-ledger.e2e.test.ts",
  "test/payments/crash.e2e.test.ts",
  "test/payments/interrupted-issuance.e2e.test.ts",
  "test/payments/x402-crash-recovery.e2e.test.ts",
  "test/payments/x402-per-read-burst.e2e.test.ts",
  "test/people/key-usage.e2e.test.ts",
  "test/store/client-limiter-redis.test.ts",
  "test/store/redis-backup-drill.test.ts",
  "test/store/redis-topologies.test.ts",
  "test/store/redis.test.ts",
  "test/tracing/traces.e2e.test.ts",
];

/** Needs a real Chromium (Debian's, driven by playwright-core). */
export const BROWSER = [
  "test/payments/card-success.e2e.test.ts",
  "test/payments/x402-official-client.e2e.test.ts",
  "test/people/browser.e2e.test.ts",
  "test/signing/browser-verify.e2e.test.ts",
];

/** Needs neither, but takes long: kill -9 crash suites, fuzzing, bundles and packed installs. */
export const SLOW = [
  "test/hardening/fuzz.e2e.test.ts",
  "test/payments/per-use-batched-crash.e2e.test.ts",
  "test/payments/x402-per-read-crash.e2e.test.ts",
  "test/people/cli-bundle.e2e.test.ts",
  "test/people/client-package.e2e.test.ts",
  "test/people/release-install.e2e.test.ts",
  "test/runtime/crash-mixed.e2e.test.ts",
  "test/runtime/crash.e2e.test.ts",
];

/** Every file outside the unit tier. */
export const LISTED = [...REDIS, ...BROWSER, ...SLOW];

// A renamed or deleted file must leave its list too, or the tiers stop meaning what they say.
const root = fileURLToPath(new URL("..", import.meta.url));
for (const file of LISTED) if (!existsSync(root + file)) throw new Error(`test/tiers.ts lists ${file}, which does not exist`);
if (new Set(LISTED).size !== LISTED.length) throw new Error("test/tiers.ts lists a file twice");
