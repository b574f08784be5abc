/** Proof-of-Value (trial keys) and member telemetry (Proof-of-Outcome) over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
beforeAll(async () => void (svc = await startTestService(buildContentTo(writeFixtureContent()), { TRIALS_PER_CLIENT_HOUR: "1000" })));
afterAll(() => svc?.close());

let agents = 0;
async function trialKey(agent = `pov-agent-${++agents}`, vertical = "ai-compliance"): Promise<string> {
  const res = await svc.request("/api/trial", { method: "POST", json: { agent_id: agent, vertical } });
  expect(res.status).toBe(200);
  return res.body.key;
}
async function memberKey(agent: string): Promise<string> {
  const res = await svc.request("/api/keys", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    json: { vertical: "travel", agent_id: agent },
  });
  expect(res.status).toBe(201);
  return res.body.keys[0].key;
}
const pov = (key: string | null, body: unknown) =>
  svc.request("/api/telemetry/pov", { method: "POST", headers: key ? { "x-service-key": key } : {}, json: body });
const outcome = (key: string | null, body: unknown) =>
  svc.request("/api/telemetry", { method: "POST", headers: key ? { "x-service-key": key } : {}, json: body });

describe("POST /api/telemetry/pov bounds", () => {
  it.each([0, 1, 0.5])("accepts confidence_score %s", async (score) => {
    const key = await trialKey();
    const res = await pov(key, { trial_key: key, confidence_score: score });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ recorded: true, replaced: false });
  });

  it.each([1.0000001, -0.0000001, 2, "0.5", null])("rejects confidence_score %s", async (score) => {
    const key = await trialKey();
    const res = await pov(key, { trial_key: key, confidence_score: score });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors[0].pointer).toBe("/confidence_score");
  });

  it("accepts a 1024-character review and rejects 1025", async () => {
    const key = await trialKey();
    expect((await pov(key, { trial_key: key, confidence_score: 0.7, review: "r".repeat(1024) })).status).toBe(200);
    const long = await pov(key, { trial_key: key, confidence_score: 0.7, review: "r".repeat(1025) });
    expect(long.status).toBe(400);
    expect(long.body.errors[0].pointer).toBe("/review");
  });

  it.each([
    [{ confidence_score: 0.5 }, "/trial_key"],
    [{ trial_key: "K", confidence_score: 0.5, intent_to_subscribe: "yes" }, "/intent_to_subscribe"],
    [{ trial_key: "K", confidence_score: 0.5, modules_accessed: "aic-start" }, "/modules_accessed"],
    [{ trial_key: "K", confidence_score: 0.5, unknown: 1 }, "/unknown"],
  ])("400 for %j", async (body, pointer) => {
    const key = await trialKey();
    const res = await pov(key, JSON.parse(JSON.stringify(body).replace('"K"', JSON.stringify(key))));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
  });
});

describe("POST /api/telemetry/pov keys", () => {
  it("401 without a key or with a bad one", async () => {
    const key = await trialKey();
    expect((await pov(null, { trial_key: key, confidence_score: 0.5 })).body.code).toBe("key_missing");
    expect((await pov("svc_trial_" + "Z".repeat(22), { trial_key: key, confidence_score: 0.5 })).body.code).toBe("key_invalid");
    expect((await pov("garbage", { trial_key: key, confidence_score: 0.5 })).status).toBe(401);
  });

  it("400 when trial_key is not a real trial key (unknown, malformed, a membership key)", async () => {
    const key = await trialKey();
    const member = await memberKey("pov-member-x");
    for (const trial_key of ["svc_trial_" + "Q".repeat(22), "nonsense", member]) {
      const res = await pov(key, { trial_key, confidence_score: 0.5 });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("trial_key_invalid");
    }
  });

  it("403 when the caller's key is another agent's", async () => {
    const mine = await trialKey();
    const theirs = await trialKey();
    expect((await pov(mine, { trial_key: theirs, confidence_score: 0.5 })).body.code).toBe("key_mismatch");
    expect((await pov(await memberKey("someone-else"), { trial_key: theirs, confidence_score: 0.5 })).status).toBe(403);
  });

  it("lets the same agent's membership key evaluate its expired trial", async () => {
    const trial = await trialKey("converter-1");
    const member = await memberKey("converter-1");
    svc.clock.advance(25 * 3_600_000);
    expect((await pov(trial, { trial_key: trial, confidence_score: 0.9 })).body.code).toBe("key_expired");
    const res = await pov(member, { trial_key: trial, confidence_score: 0.9, intent_to_subscribe: true });
    expect(res.status).toBe(200);
  });
});

describe("Proof-of-Value aggregate", () => {
  it("counts each trial key once (a repeat replaces), with mean, intent share and highlighted reviews", async () => {
    const base = (await svc.request("/api/telemetry/pov")).body;
    const status0 = (await svc.request("/api/status")).body.community_evidence.trial_evaluations;
    expect(status0).toBe(base.evaluations);

    const k1 = await trialKey();
    const k2 = await trialKey();
    const k3 = await trialKey();
    const first = await pov(k1, { trial_key: k1, confidence_score: 0.2, review: "first impression", intent_to_subscribe: false });
    expect(first.body.replaced).toBe(false);
    const repeat = await pov(k1, {
      trial_key: k1,
      confidence_score: 0.95,
      review: "Saved us a failed filing.",
      intent_to_subscribe: true,
      modules_accessed: ["aic-start"],
    });
    expect(repeat.body).toMatchObject({ replaced: true, trial_key_id: first.body.trial_key_id, evaluations: first.body.evaluations });
    await pov(k2, { trial_key: k2, confidence_score: 0.1, review: "Too shallow for our case.", intent_to_subscribe: false });
    await pov(k3, { trial_key: k3, confidence_score: 0.6 });

    const agg = (await svc.request("/api/telemetry/pov")).body;
    expect(agg.evaluations).toBe(base.evaluations + 3);
    expect((await svc.request("/api/status")).body.community_evidence.trial_evaluations).toBe(agg.evaluations);
    expect(agg.intent_to_subscribe.yes).toBe(base.intent_to_subscribe.yes + 1);
    expect(agg.intent_to_subscribe.no).toBe(base.intent_to_subscribe.no + 1);
    expect(agg.intent_to_subscribe.share).toBeCloseTo(agg.intent_to_subscribe.yes / agg.evaluations, 6);
    expect(agg.mean_confidence_score).toBeGreaterThan(0);
    expect(agg.highlight_rule).toMatch(/highest confidence_score/);
    expect(
      agg.highlighted_reviews
        .filter((r: { highlight: string }) => r.highlight === "top")
        .every((r: { confidence_score: number }) => r.confidence_score >= 0.5),
    ).toBe(true);
    // The replaced review is gone; the strongest and the most critical ones are highlighted.
    const reviews = agg.highlighted_reviews.map((r: { review: string }) => r.review);
    expect(reviews).not.toContain("first impression");
    expect(agg.highlighted_reviews.find((r: { review: string }) => r.review === "Saved us a failed filing.")).toMatchObject({
      highlight: "top",
      confidence_score: 0.95,
      intent_to_subscribe: true,
      vertical: "ai-compliance",
    });
    expect(agg.highlighted_reviews.find((r: { review: string }) => r.review === "Too shallow for our case.")).toMatchObject({
      highlight: "critical",
      confidence_score: 0.1,
    });
    expect(agg.highlighted_reviews.length).toBeLessThanOrEqual(5);
    expect(JSON.stringify(agg)).not.toContain(k1);
  });

  it("serves one computed aggregate for 2 seconds; another instance's submission shows up after that", async () => {
    const before = (await svc.request("/api/telemetry/pov")).body;
    // Another instance's submission: written straight into the shared store.
    await svc.service.deps.backend.records.setItem("pov:sub:other-instance", {
      trial_key_id: "0000000000ff",
      vertical: "travel",
      confidence_score: 1,
      modules_accessed: [],
      intent_to_subscribe: true,
      review: null,
      submitted_at: new Date(svc.clock.now()).toISOString(),
      first_submitted_at: new Date(svc.clock.now()).toISOString(),
    });
    expect((await svc.request("/api/telemetry/pov")).body.evaluations).toBe(before.evaluations);
    svc.clock.advance(2000);
    expect((await svc.request("/api/telemetry/pov")).body.evaluations).toBe(before.evaluations + 1);
    await svc.service.deps.backend.records.removeItem("pov:sub:other-instance");
    svc.clock.advance(2000);
  });

  it("counts concurrent submissions of one trial key once", async () => {
    const before = (await svc.request("/api/telemetry/pov")).body.evaluations;
    const key = await trialKey();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => pov(key, { trial_key: key, confidence_score: i / 10 })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.replaced === false)).toHaveLength(1);
    expect((await svc.request("/api/telemetry/pov")).body.evaluations).toBe(before + 1);
  });
});

describe("POST /api/telemetry (member Proof-of-Outcome)", () => {
  it("records a member's outcome and updates the aggregate", async () => {
    const key = await memberKey("outcome-member-1");
    const res = await outcome(key, {
      confidence_score: 0.9,
      outcome: "succeeded",
      vertical: "travel",
      nodes_used: ["trv-m1"],
      tasks_completed: 12,
      errors_prevented: 2,
      tokens_saved: 40_000,
      notes: "n".repeat(1024),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      recorded: true,
      kind: "proof_of_outcome",
      aggregate: { submissions: 1, mean_confidence_score: 0.9 },
      cohort: { active_cohort: "inaugural", opened: null },
    });
    const second = await outcome(key, { confidence_score: 0.5 });
    expect(second.body.aggregate).toEqual({ submissions: 2, mean_confidence_score: 0.7 });
    expect((await svc.request("/api/waitlist")).body.progression).toMatchObject({ outcome_submissions: 2, mean_outcome_confidence: 0.7 });
  });

  it("refuses trial keys (a valid key of the wrong kind: 403), missing and bad keys (401)", async () => {
    const trial = await trialKey();
    const refused = await outcome(trial, { confidence_score: 0.9 });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("key_kind_not_allowed");
    expect((await outcome(null, { confidence_score: 0.9 })).body.code).toBe("key_missing");
    expect((await outcome("svc_live_" + "Y".repeat(22), { confidence_score: 0.9 })).body.code).toBe("key_invalid");
  });

  it("bounds: 0 and 1 accepted, 1.0000001 and 1025-character notes rejected", async () => {
    const key = await memberKey("outcome-member-2");
    expect((await outcome(key, { confidence_score: 0 })).status).toBe(200);
    expect((await outcome(key, { confidence_score: 1 })).status).toBe(200);
    for (const body of [
      { confidence_score: 1.0000001 },
      { confidence_score: 0.5, notes: "n".repeat(1025) },
      { confidence_score: 0.5, outcome: "great" },
      { confidence_score: 0.5, tasks_completed: -1 },
      {},
    ]) {
      const res = await outcome(key, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.code).toBe("validation_failed");
    }
  });
});

describe("POST /api/telemetry daily cap per membership key (OUTCOMES_PER_KEY_DAY)", () => {
  const DAY_MS = 86_400_000;
  const progression = async () =>
    (await svc.request("/api/waitlist")).body.progression as { outcome_submissions: number; mean_outcome_confidence: number };

  it("refuses the N+1th submission of a UTC day without moving the mean, and accepts again the next day", async () => {
    const limit = svc.service.deps.config.outcomesPerKeyDay;
    expect(limit).toBe(20);
    // Noon of a fresh UTC day, so the day cannot roll over mid-test and Retry-After is exactly 12 h.
    svc.clock.set((Math.floor(svc.clock.now() / DAY_MS) + 1) * DAY_MS + DAY_MS / 2);
    const key = await memberKey("outcome-stuffer");
    for (let i = 0; i < limit; i++) expect((await outcome(key, { confidence_score: 1 })).status).toBe(200);
    const before = await progression();

    const refused = await outcome(key, { confidence_score: 0 });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(refused.body.code).toBe("outcome_limit_reached");
    expect(refused.headers.get("retry-after")).toBe(String(DAY_MS / 2 / 1000));
    expect(await progression()).toEqual(before);

    // Another member is not affected by this key's cap.
    expect((await outcome(await memberKey("outcome-bystander"), { confidence_score: 0.5 })).status).toBe(200);

    svc.clock.advance(DAY_MS / 2); // 00:00:00 UTC of the next day
    const next = await outcome(key, { confidence_score: 0 });
    expect(next.status).toBe(200);
    expect(next.body.aggregate.submissions).toBe(before.outcome_submissions + 2);
  });

  it("admits exactly N of concurrent submissions from one key", async () => {
    const limit = svc.service.deps.config.outcomesPerKeyDay;
    svc.clock.set((Math.floor(svc.clock.now() / DAY_MS) + 1) * DAY_MS + DAY_MS / 2);
    const key = await memberKey("outcome-racer");
    const before = (await progression()).outcome_submissions;
    const answers = await Promise.all(Array.from({ length: limit + 10 }, () => outcome(key, { confidence_score: 0.9 })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(limit);
    expect(answers.filter((a) => a.status === 429 && a.body.code === "outcome_limit_reached")).toHaveLength(10);
    expect((await progression()).outcome_submissions).toBe(before + limit);
  });
});
