/**
 * The per-key daily usage history matches the metered calls: metered reads over real HTTP spread
 * over three UTC days by the injected clock (a burst among them), then read back per day by the
 * key's owner (GET /api/keys) and by the operator (GET /api/admin/keys/usage and the real
 * `vkr keys usage`), on the embedded
 * store and on Redis; days older than 90 are dropped.
 *
 * The CLI reads at real time, so the test's days are the two before today and today.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { foldUsageHistory } from "../../runtime/domain/metering/usage-history.ts";
import { limitsInForce } from "../../runtime/state/releases/build-ref.ts";
import { deletePrefix, SHARED_REDIS_URL, uniquePrefix } from "../cluster/_cluster.ts";
import { runVkr } from "../helpers/run-vkr.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { peopleFixtureDist } from "./_fixture.ts";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const admin = { authorization: `Bearer ${ADMIN_KEY}` };

describe.each([
  { store: "sqlite", redisPrefix: null },
  { store: "redis", redisPrefix: uniquePrefix() },
])("usage history on $store", ({ redisPrefix }) => {
  let svc: TestService;
  const redisEnv: Record<string, string> = redisPrefix ? { REDIS_URL: SHARED_REDIS_URL, REDIS_PREFIX: redisPrefix } : {};

  beforeAll(async () => {
    svc = await startTestService(peopleFixtureDist(), redisEnv);
  });
  afterAll(async () => {
    await svc?.close();
    if (redisPrefix) await deletePrefix(SHARED_REDIS_URL, redisPrefix);
  });

  const issue = async (label: string) => {
    const res = await svc.request("/api/keys", { method: "POST", headers: admin, json: { vertical: "travel", label } });
    expect(res.status).toBe(201);
    return res.body.keys[0] as { key: string; id: string };
  };
  const read = (key: string) => svc.request("/api/demo?vertical=travel&node=trv-m1", { headers: { "x-service-key": key } });
  const reads = async (key: string, n: number) => {
    const answers = await Promise.all(Array.from({ length: n }, () => read(key)));
    expect(answers.map((a) => a.status)).toEqual(Array(n).fill(200));
  };
  const own = async (key: string) => {
    const res = await svc.request("/api/keys", { headers: { "x-service-key": key } });
    expect(res.status).toBe(200);
    return res.body as { usage: { day: number }; usage_history: Array<{ date: string; requests: number }> };
  };
  /** What a running instance does at start and every 10 minutes, at the test clock's time. */
  const fold = () => foldUsageHistory(svc.service.deps, limitsInForce(svc.service.deps), svc.clock.now());
  const vkr = (args: string[]) => {
    const { dataDir, distDir } = svc.service.deps.config;
    return runVkr([...args, "--data-dir", dataDir, "--dist-dir", distDir], redisEnv);
  };

  it("GET /api/keys and vkr keys usage show exactly the metered calls per UTC day", async () => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    svc.clock.set(today - 2 * DAY + 10 * HOUR);
    const a = await issue("usage-a");
    const b = await issue("usage-b");

    await reads(a.key, 4);
    await reads(b.key, 2);
    // A read answered 304 is not metered (meter-read.ts), so it is not in the history either.
    const first = await read(a.key);
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    const unchanged = await svc.request("/api/demo?vertical=travel&node=trv-m1", {
      headers: { "x-service-key": a.key, "if-none-match": etag! },
    });
    expect(unchanged.status).toBe(304);

    svc.clock.set(today - DAY + HOUR);
    expect(await fold()).toMatchObject({ day: date(today - 2 * DAY), keys: 2 });
    // A burst of concurrent metered reads.
    await reads(a.key, 150);
    svc.clock.set(today + HOUR);
    await fold();
    await reads(a.key, 3);

    const expected = [
      { date: date(today - 2 * DAY), requests: 5 },
      { date: date(today - DAY), requests: 150 },
      { date: date(today), requests: 3 },
    ];
    const view = await own(a.key);
    expect(view.usage_history).toEqual(expected);
    expect(view.usage.day).toBe(3);
    expect((await own(b.key)).usage_history).toEqual([{ date: date(today - 2 * DAY), requests: 2 }]);

    const adminView = await svc.request(`/api/admin/keys/usage?id=${a.id}`, { headers: admin });
    expect([adminView.status, adminView.body]).toEqual([200, { id: a.id, days: 90, total: 158, usage_history: expected }]);
    expect((await svc.request(`/api/admin/keys/usage?id=${a.id}`)).status).toBe(401);
    const badId = await svc.request("/api/admin/keys/usage?id=nothex", { headers: admin });
    expect([badId.status, badId.body.code]).toEqual([400, "validation_failed"]);
    const noKey = await svc.request("/api/admin/keys/usage?id=ffffffffffff", { headers: admin });
    expect([noKey.status, noKey.body.code]).toEqual([404, "key_not_found"]);

    const json = await vkr(["keys", "usage", a.id, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(adminView.body);
    const text = await vkr(["keys", "usage", a.key]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`${a.id}: 158 calls in the last 90 days`);
    expect(text.stdout).toContain(`${date(today - DAY)}  150`);
    const unknown = await vkr(["keys", "usage", "ffffffffffff"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain(`No key "ffffffffffff"`);

    // Today is folded tomorrow; 90 days on, the first day is no longer shown.
    svc.clock.set(today + DAY + HOUR);
    await fold();
    svc.clock.set(today - 2 * DAY + 90 * DAY + HOUR);
    expect((await own(a.key)).usage_history).toEqual(expected.slice(1));
    svc.clock.set(today + 90 * DAY + HOUR);
    expect((await own(a.key)).usage_history).toEqual([]);
  }, 180_000);
});
