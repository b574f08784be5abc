/**
 * POST /api/interest accepts slugs nobody listed ("proposed" verticals), and the
 * number of distinct proposals is capped so the public summary stays bounded. The cap is taken
 * atomically before a proposal is written: one concurrent burst of 260 new slugs, on SQLite and on
 * two instances sharing Redis, proposes exactly PROPOSED_VERTICALS_MAX (200).
 */
import { afterAll, describe, expect, it } from "vitest";
import { deletePrefix, SHARED_REDIS_URL, uniquePrefix } from "../cluster/_cluster.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";

const dist = buildContentTo(writeFixtureContent());
const prefix = uniquePrefix();
const started: TestService[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
  await deletePrefix(SHARED_REDIS_URL, prefix);
});

async function burst(services: TestService[]): Promise<void> {
  const signal = (i: number) =>
    services[i % services.length]!.request("/api/interest", {
      method: "POST",
      headers: { "x-forwarded-for": `198.51.100.${i % 200}` },
      json: { vertical: `proposal-${i}`, agent_id: `proposer-${i}` },
    });
  const answers = await Promise.all(Array.from({ length: 260 }, (_, i) => signal(i)));
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(200);
  const refused = answers.filter((a) => a.status !== 200);
  expect(refused.every((a) => a.status === 400 && a.body.code === "vertical_not_allowed")).toBe(true);
  const proposed = (await services[0]!.request("/api/interest/summary")).body.verticals.filter(
    (r: { status: string }) => r.status === "proposed",
  );
  expect(proposed).toHaveLength(200);
  expect(proposed.every((r: { signals: number }) => r.signals === 1)).toBe(true);
  // A proposal that made it still takes signals; listed verticals are unaffected by the cap.
  const kept = proposed[0].vertical as string;
  expect(
    (await services[0]!.request("/api/interest", { method: "POST", json: { vertical: kept, agent_id: "late-fan" } })).body.signals,
  ).toBe(2);
  expect(
    (await services[0]!.request("/api/interest", { method: "POST", json: { vertical: "logistics", agent_id: "late-fan" } })).status,
  ).toBe(200);
}

describe("proposed verticals are capped exactly under a concurrent burst", () => {
  it("on SQLite", async () => {
    const svc = await startTestService(dist, { TRUST_PROXY: "1" });
    started.push(svc);
    await burst([svc]);
  });

  it("on two instances sharing Redis", async () => {
    const env = { TRUST_PROXY: "1", REDIS_URL: SHARED_REDIS_URL, REDIS_PREFIX: prefix };
    const pair = await Promise.all([startTestService(dist, env), startTestService(dist, env)]);
    started.push(...pair);
    await burst(pair);
  });
});
