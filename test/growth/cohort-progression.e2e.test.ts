/**
 * A cohort transition with its credits, over real HTTP, on a fixture whose cohorts.yaml has small
 * caps (the caps are data): seats fill, Proof-of-Outcome crosses 0.8, the next tier opens once
 * and every member of the left cohort is credited once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCreditsStore } from "../../runtime/state/storage/credits-store.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
beforeAll(async () => {
  const content = writeFixtureContent(undefined, { memberCaps: { inaugural: 3, core: 2, growth: 2, scale: 2, cap: 2 } });
  svc = await startTestService(buildContentTo(content));
});
afterAll(() => svc?.close());

const keys: Record<string, string> = {};
async function issue(agent: string, quantity = 1) {
  const res = await svc.request("/api/keys", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    json: { vertical: "travel", agent_id: agent, quantity },
  });
  expect(res.status).toBe(201);
  keys[agent] = res.body.keys[0].key;
  return res.body.keys as Array<{ key: string; cohort: string }>;
}
const telemetry = (agent: string, confidence_score: number) =>
  svc.request("/api/telemetry", {
    method: "POST",
    headers: { "x-service-key": keys[agent]! },
    json: { confidence_score, outcome: "succeeded" },
  });
const ledger = (account: string) => createCreditsStore(svc.service.deps.backend).list(account);
const balance = (account: string) => createCreditsStore(svc.service.deps.backend).balance(account);

describe("cohort progression", () => {
  it("stays in inaugural while seats are open, then while confidence is not above 0.8", async () => {
    await issue("founder-1");
    await issue("founder-2", 2);
    expect((await svc.request("/api/waitlist")).body.cohorts[0]).toMatchObject({
      name: "inaugural",
      status: "open",
      seats_claimed: 2,
      seats_remaining: 1,
    });
    // Confidence is high, but a seat is still open.
    expect((await telemetry("founder-1", 1)).body.cohort).toEqual({ active_cohort: "inaugural", opened: null });
    // A trial key never takes a seat.
    await svc.request("/api/trial", { method: "POST", json: { agent_id: "just-trying" } });
    expect((await svc.request("/api/waitlist")).body.seats_registered).toBe(2);

    await telemetry("founder-1", 0.6); // mean 0.8: not above it
    await issue("founder-3"); // the last seat: evaluated, but confidence is exactly 0.8
    const full = (await svc.request("/api/waitlist")).body;
    expect(full).toMatchObject({ active_cohort: "inaugural", inaugural_status: "full", active_cohort_seats_remaining: 0 });
    expect(full.cohorts[0].status).toBe("full");
    expect(full.progression).toMatchObject({ outcome_submissions: 2, mean_outcome_confidence: 0.8 });
    const status = (await svc.request("/api/status")).body;
    expect(status).toMatchObject({
      active_cohort: "inaugural",
      inaugural_member_cap: 3,
      total_inaugural_registered: 3,
      inaugural_seats_remaining: 0,
      inaugural_status: "full",
    });
    expect(await balance("founder-1")).toBe(0);
  });

  it("opens core when member telemetry lifts the mean above 0.8, crediting every inaugural member $1.90 once", async () => {
    const res = await telemetry("founder-2", 0.9); // mean (1 + 0.6 + 0.9) / 3 = 0.833…
    expect(res.status).toBe(200);
    expect(res.body.cohort).toEqual({ active_cohort: "core", opened: "core" });
    expect(res.body.aggregate).toEqual({ submissions: 3, mean_confidence_score: 0.833333 });

    const status = (await svc.request("/api/status")).body;
    expect(status.active_cohort).toBe("core");
    expect(status.verticals.travel.cohort).toBe("core");
    const overview = (await svc.request("/api/waitlist")).body;
    expect(overview.cohorts.map((c: { status: string }) => c.status)).toEqual(["closed", "open", "upcoming", "upcoming", "upcoming"]);
    expect(overview.active_cohort_seats_remaining).toBe(2);

    for (const founder of ["founder-1", "founder-2", "founder-3"]) {
      const entries = await ledger(founder);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ kind: "loyalty", amount_usd_micros: 1_900_000 });
      expect(await balance(founder)).toBe(1_900_000);
    }
    // More telemetry re-evaluates but never credits twice.
    expect((await telemetry("founder-3", 0.95)).body.cohort).toEqual({ active_cohort: "core", opened: null });
    expect(await balance("founder-2")).toBe(1_900_000);
    // The member sees the loyalty credit in its balance; a referral adds nothing until the friend pays.
    const ref = await svc.request("/api/referral", {
      method: "POST",
      headers: { "x-service-key": keys["founder-1"]! },
      json: { referring_key: keys["founder-1"], referred_agent_id: "friend-of-founder" },
    });
    expect(ref.body.credit_balance).toMatchObject({ usd_micros: 1_900_000, amount: "$1.90" });
    expect(ref.body.referral.status).toBe("pending");
  });

  it("grandfathers: earlier keys keep their cohort; new members join core", async () => {
    expect((await svc.request("/api/keys", { headers: { "x-service-key": keys["founder-1"]! } })).body.cohort).toBe("inaugural");
    const [first] = await issue("second-wave-1");
    expect(first!.cohort).toBe("core");
    // An existing member adding keys takes no new seat and stays in its cohort's seat count.
    await issue("founder-2", 1);
    expect((await svc.request("/api/waitlist")).body.cohorts[1].seats_claimed).toBe(1);
  });

  it("opens growth on the seat claim that fills core (concurrent claims open it once), crediting core members $4.90", async () => {
    await Promise.all([issue("second-wave-2"), issue("second-wave-3")]);
    const overview = (await svc.request("/api/waitlist")).body;
    expect(overview.active_cohort).toBe("growth");
    // Two accounts raced for core's last seat: one took it, the other found core full, opened
    // growth (confidence was met) and took a growth seat. The cap held; growth opened once.
    const core = overview.cohorts[1];
    expect(core.status).toBe("closed");
    expect([core.seats_claimed, overview.cohorts[2].seats_claimed]).toEqual([2, 1]);
    const coreMembers = ["second-wave-1", "second-wave-2", "second-wave-3"];
    const credited = [];
    for (const m of coreMembers) {
      const entries = await ledger(m);
      expect(entries.length).toBeLessThanOrEqual(1);
      if (entries.length) {
        expect(entries[0]).toMatchObject({ kind: "loyalty", amount_usd_micros: 4_900_000 });
        credited.push(m);
      }
    }
    expect(credited.length).toBe(core.seats_claimed);
    // Inaugural members are not credited again.
    expect(await balance("founder-3")).toBe(1_900_000);
    expect(svc.logs.filter((l) => l.includes('"cohort opened"'))).toHaveLength(2);
  });
});
