// The durable floor: the bare node:http baseline plus the one step no metered request can skip,
// the atomic check-and-increment of the presented key's hour, day and month windows in the
// service's own embedded store (the same SQLite backend: group commit, counter cache, one row per
// key, checkpoints on a worker), awaited before the answer goes out. No h3, no key lookup, no
// headers beyond the baseline's. Its ratio to the baseline is the most a metered request on the
// embedded store can reach on this machine, whatever the framework and the handler cost.
import { createServer } from "node:http";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planWindows, type PlannedWindow } from "../runtime/metering/quota.ts";
import type { Limits } from "../runtime/schema/catalog.ts";
import type { KeyRecord } from "../runtime/schema/keys.ts";
import { hashKey, keyIdOf } from "../runtime/keys/key-secret.ts";
import { createSqliteBackend } from "../runtime/storage/sqlite-backend.ts";

const body = readFileSync(process.argv[2]!);
const headers = { "content-type": "application/json; charset=utf-8", "content-length": String(body.length) };
const backend = createSqliteBackend({
  dataDir: mkdtempSync(join(tmpdir(), "vkr-durable-floor-")),
  onCheckpointError: (m) => process.stderr.write(`checkpoint: ${m}\n`),
});

const HUGE = 1e9;
const limits: Limits = {
  per_key_monthly: HUGE,
  volume_monthly_5_keys: HUGE,
  hourly_rate_limit: HUGE,
  daily_standard: HUGE,
  daily_scale: HUGE,
  overage_per_call_usd_micros: 0,
  per_use_price_usd_micros: 0,
  trial_calls: HUGE,
  trial_hours: 1,
  keys_per_account: 5,
  referral_credit_usd_micros: 0,
  referrals_per_cycle: 0,
  demand_signals_to_activate: 1,
  refund_window_days: 0,
  refund_max_retrievals: 0,
};
// The service keeps each key's windows for the hour; so does this, keyed by the presented string.
// The record id is the service's (the first 12 hex digits of the key's SHA-256), so each key's
// counters land in the row the service writes, at the same place in the table: numbered ids put
// keys issued one after another into neighbouring rows, and a batch of them then wrote a handful
// of pages where the service, whose ids are spread over the whole table, writes one page per key.
const HOUR = 3_600_000;
const plans = new Map<string, { hourStart: number; windows: PlannedWindow[] }>();

function windowsOf(key: string, now: number): PlannedWindow[] {
  const hourStart = Math.floor(now / HOUR) * HOUR;
  const hit = plans.get(key);
  if (hit !== undefined && hit.hourStart === hourStart) return hit.windows;
  const record: KeyRecord = {
    id: keyIdOf(hashKey(key)),
    hash: "",
    type: "membership",
    vertical: "travel",
    cohort: "inaugural",
    plan: "standard",
    label: null,
    agent_id: null,
    account: null,
    permanent: false,
    status: "active",
    source: "admin",
    created_at: new Date(now).toISOString(),
    expires_at: null,
    revoked_at: null,
  };
  const windows = planWindows(record, limits, now);
  plans.set(key, { hourStart, windows });
  return windows;
}

createServer((req, res) => {
  const now = Date.now();
  const key = req.headers["x-service-key"];
  const consumed = typeof key === "string" ? backend.consume(windowsOf(key, now), 1, now) : Promise.resolve(null);
  consumed.then(
    () => {
      res.writeHead(200, headers);
      res.end(body);
    },
    (error: unknown) => {
      res.writeHead(500).end(String(error));
    },
  );
}).listen(Number(process.argv[3]), "127.0.0.1", () => process.stdout.write("ready\n"));
