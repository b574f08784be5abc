/** Waitlist and demand signals over real HTTP: positions, dedupe, bounds, rate limits, counts in status. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
beforeAll(
  async () =>
    void (svc = await startTestService(buildContentTo(writeFixtureContent()), { INTEREST_ANON_PER_CLIENT_DAY: "3", TRUST_PROXY: "1" })),
);
afterAll(() => svc?.close());

const join = (body: unknown) => svc.request("/api/waitlist", { method: "POST", json: body });
const signal = (body: unknown, client = "203.0.113.1") =>
  svc.request("/api/interest", { method: "POST", headers: { "x-forwarded-for": client }, json: body });

describe("POST /api/waitlist", () => {
  it("gives positions in order, and the same agent its original position and confirmation again", async () => {
    const a = await join({ vertical: "logistics", agent_id: "agent-a" });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ position: 1, vertical: "logistics", already_registered: false, waitlist_registered: 1 });
    expect(a.body.confirmation).toMatch(/^wl_[0-9a-f]{20}$/);
    const b = await join({ vertical: "logistics", agent_id: "agent-b", contact: "b@example.com" });
    expect(b.body.position).toBe(2);
    const again = await join({ vertical: "logistics", agent_id: "agent-a" });
    expect(again.body).toMatchObject({ position: 1, confirmation: a.body.confirmation, already_registered: true, waitlist_registered: 2 });
    // A different vertical is a separate list.
    expect((await join({ vertical: "legal", agent_id: "agent-a" })).body.position).toBe(1);
  });

  it("lets a contact email stand in for agent_id (case-insensitive)", async () => {
    const first = await join({ vertical: "hrm", contact: "Ops@Example.com" });
    expect(first.body.position).toBe(1);
    expect((await join({ vertical: "hrm", contact: "ops@example.com" })).body).toMatchObject({ position: 1, already_registered: true });
  });

  it("reads agent_id and contact as people read them: case, width and surrounding spaces name one party", async () => {
    const first = await join({ vertical: "software-engineering", agent_id: "Agent-Ω" });
    expect(first.body).toMatchObject({ position: 1, already_registered: false });
    for (const agent_id of ["agent-ω", "  AGENT-Ω ", "\uff21gent-\u03a9"]) {
      expect((await join({ vertical: "software-engineering", agent_id })).body, agent_id).toMatchObject({
        position: 1,
        already_registered: true,
        confirmation: first.body.confirmation,
      });
    }
    expect((await join({ vertical: "software-engineering", contact: "OPS@Example.COM" })).body.position).toBe(2);
    expect((await join({ vertical: "software-engineering", contact: "ops@example.com" })).body).toMatchObject({
      position: 2,
      already_registered: true,
    });
    expect((await join({ vertical: "software-engineering", agent_id: "agent\u200bx" })).body.code).toBe("validation_failed");
  });

  it("gives exact, distinct positions to concurrent joins", async () => {
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => join({ vertical: "manufacturing", agent_id: `racer-${i}` })));
    expect(results.map((r) => r.body.position).sort((x, y) => x - y)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  it.each([
    [{ vertical: "ai-compliance", agent_id: "x" }, "vertical_not_allowed"],
    [{ vertical: "a2a-handoff", agent_id: "x" }, "vertical_not_allowed"],
    [{ vertical: "atlantis", agent_id: "x" }, "vertical_unknown"],
    [{ vertical: "travel" }, "validation_failed"],
    [{ vertical: "travel", agent_id: "x", contact: "not-an-email" }, "validation_failed"],
    [{ vertical: "travel", agent_id: "" }, "validation_failed"],
    [{ vertical: "travel", agent_id: "x", extra: true }, "validation_failed"],
  ])("400 for %j", async (body, code) => {
    const res = await join(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
  });

  it("is reflected in the status object and GET /api/waitlist", async () => {
    await join({ vertical: "revops", agent_id: "agent-r1" });
    await join({ vertical: "revops", agent_id: "agent-r2" });
    const status = await svc.request("/api/status");
    expect(status.body.verticals.revops).toEqual({ cohort: "inaugural", waitlist_registered: 2 });
    const overview = await svc.request("/api/waitlist");
    expect(overview.status).toBe(200);
    expect(overview.body.verticals.find((v: { vertical: string }) => v.vertical === "revops").waitlist_registered).toBe(2);
    expect(overview.body.verticals).toHaveLength(15);
    expect(overview.body.verticals.map((v: { vertical: string }) => v.vertical)).not.toContain("ai-compliance");
  });
});

describe("GET /api/waitlist", () => {
  it("reports seats per cohort and the active cohort; a member account takes one seat however many keys it holds", async () => {
    const before = (await svc.request("/api/waitlist")).body;
    expect(before.active_cohort).toBe("inaugural");
    expect(before.cohorts.map((c: { name: string; status: string }) => [c.name, c.status])).toEqual([
      ["inaugural", "open"],
      ["core", "upcoming"],
      ["growth", "upcoming"],
      ["scale", "upcoming"],
      ["cap", "upcoming"],
    ]);
    expect(before.cohorts[0]).toMatchObject({
      member_cap: 900,
      price: "$19",
      price_usd_micros: 19_000_000,
      loyalty_credit_usd_micros: 1_900_000,
    });
    const issue = (body: unknown) =>
      svc.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: body });
    await issue({ vertical: "travel", agent_id: "seat-holder", quantity: 3 });
    await issue({ vertical: "travel", agent_id: "seat-holder", quantity: 2 });
    const after = (await svc.request("/api/waitlist")).body;
    expect(after.seats_registered).toBe(before.seats_registered + 1);
    expect(after.cohorts[0].seats_claimed).toBe(before.cohorts[0].seats_claimed + 1);
    expect(after.active_cohort_seats_remaining).toBe(900 - after.cohorts[0].seats_claimed);
    expect(after.inaugural_status).toBe("open");
    expect(after.progression).toMatchObject({ threshold: 0.8, outcome_submissions: 0, mean_outcome_confidence: null });
    expect((await svc.request("/api/status")).body.inaugural_seats_remaining).toBe(after.active_cohort_seats_remaining);
  });
});

describe("POST /api/interest and GET /api/interest/summary", () => {
  it("counts an agent once per vertical and ranks verticals by signals", async () => {
    const first = await signal({ vertical: "logistics", agent_id: "fan-1", use_case: "freight compliance" });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      vertical: "logistics",
      registered: true,
      counted: true,
      signals: 1,
      threshold: 500,
      build_queue_active: false,
    });
    expect((await signal({ vertical: "logistics", agent_id: "fan-1" })).body).toMatchObject({ counted: false, signals: 1 });
    await signal({ vertical: "logistics", agent_id: "fan-2" });
    await signal({ vertical: "logistics", contact: "fan3@example.com" });
    expect((await signal({ vertical: "logistics", contact: "FAN3@example.com" })).body.counted).toBe(false);
    await signal({ vertical: "hrm", agent_id: "fan-1" });

    const summary = await svc.request("/api/interest/summary");
    expect(summary.status).toBe(200);
    expect(summary.body.threshold).toBe(500);
    const rows = summary.body.verticals;
    expect(rows[0]).toMatchObject({ rank: 1, vertical: "logistics", signals: 3, build_queue_active: false, remaining_to_activate: 497 });
    expect(rows[1]).toMatchObject({ rank: 2, vertical: "hrm", signals: 1 });
    expect(rows.map((r: { rank: number }) => r.rank)).toEqual(rows.map((_: unknown, i: number) => i + 1));
    // Only verticals without live content are ranked.
    expect(rows.map((r: { vertical: string }) => r.vertical)).not.toContain("travel");
    // The placeholder answer of a vertical without content reads the same count.
    expect((await svc.request("/api/demo?vertical=logistics")).body.interest_signals).toBe(3);
  });

  it("counts an agent once however its id is written (case, width, surrounding spaces)", async () => {
    expect((await signal({ vertical: "customer-service", agent_id: "Fan-Ω" })).body).toMatchObject({ counted: true, signals: 1 });
    for (const agent_id of ["fan-ω", " FAN-Ω", "\uff26an-\u03a9"])
      expect((await signal({ vertical: "customer-service", agent_id })).body, agent_id).toMatchObject({ counted: false, signals: 1 });
    expect((await signal({ vertical: "customer-service", agent_id: "fan\u202e1" })).body.code).toBe("validation_failed");
  });

  it("counts concurrent signals of distinct agents exactly", async () => {
    await Promise.all(Array.from({ length: 30 }, (_, i) => signal({ vertical: "manufacturing", agent_id: `plant-${i % 20}` })));
    expect((await signal({ vertical: "manufacturing", agent_id: "plant-0" })).body.signals).toBe(20);
  });

  it("refuses live verticals, malformed slugs and bad bodies", async () => {
    for (const [body, code] of [
      [{ vertical: "travel", agent_id: "x" }, "vertical_not_allowed"],
      [{ vertical: "ecommerce", agent_id: "x" }, "vertical_not_allowed"],
      [{ vertical: "ethics", agent_id: "x" }, "vertical_not_allowed"],
      [{ vertical: "Atlantis" }, "validation_failed"],
      [{ vertical: "atlantis-" }, "validation_failed"],
      [{ vertical: "a".repeat(65) }, "validation_failed"],
      [{ agent_id: "x" }, "validation_failed"],
      [{ vertical: "hrm", contact: "nope" }, "validation_failed"],
      [{ vertical: "hrm", use_case: "x".repeat(1025) }, "validation_failed"],
    ] as const) {
      const res = await signal(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe(code);
    }
  });

  it("rate-limits anonymous signals per client (3 per day here), each admitted one counted", async () => {
    const before = (await signal({ vertical: "customer-service", agent_id: "named" })).body.signals;
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await signal({ vertical: "customer-service", use_case: "support triage" }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers[2]!.body.signals).toBe(before + 3);
    expect(answers[3]!.body.code).toBe("rate_limited");
    expect(Number(answers[3]!.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another client has its own allowance.
    expect((await signal({ vertical: "customer-service" }, "203.0.113.2")).status).toBe(200);
    // Named signals are not limited this way.
    expect((await signal({ vertical: "customer-service", agent_id: "named-2" })).status).toBe(200);
    // The next UTC day the client may signal again.
    svc.clock.advance(86_400_000);
    expect((await signal({ vertical: "customer-service" })).status).toBe(200);
  });

  it("one client inventing agents is stopped after NEW_IDENTITIES_PER_CLIENT_DAY (50) new ones; known ones stay free", async () => {
    const from = "192.0.2.44";
    const joins = [];
    for (let i = 0; i < 51; i++)
      joins.push(
        await svc.request("/api/waitlist", {
          method: "POST",
          headers: { "x-forwarded-for": from },
          json: { vertical: "real-estate", agent_id: `inv-${i}` },
        }),
      );
    expect(joins.slice(0, 50).every((r) => r.status === 200)).toBe(true);
    expect(joins[50]!.status).toBe(429);
    expect(joins[50]!.body.code).toBe("rate_limited");
    expect(Number(joins[50]!.headers.get("retry-after"))).toBeGreaterThan(0);
    // A known agent re-joining is not a new identity: still answered with its position.
    const again = await svc.request("/api/waitlist", {
      method: "POST",
      headers: { "x-forwarded-for": from },
      json: { vertical: "real-estate", agent_id: "inv-0" },
    });
    expect(again.status).toBe(200);
    expect(again.body.already_registered).toBe(true);
    const signals = [];
    for (let i = 0; i < 51; i++) signals.push((await signal({ vertical: "hrm", agent_id: `inv-sig-${i}` }, from)).status);
    expect(signals.slice(0, 50).every((status) => status === 200)).toBe(true);
    expect(signals[50]).toBe(429);
    expect((await signal({ vertical: "hrm", agent_id: "inv-sig-0" }, from)).body.counted).toBe(false);
  });

  it("keys the limit on the address the proxy appended, not on what the client put to its left", async () => {
    // The proxy appends the real peer (203.0.113.77); the client forges a new address each time.
    const forged = (i: number) => signal({ vertical: "customer-service" }, `198.51.100.${i}, 203.0.113.77`);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await forged(i)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it("accepts a well-formed slug nobody listed yet and ranks it as proposed, with the 500 threshold", async () => {
    const first = await signal({ vertical: "quantum-widgets", agent_id: "qw-1", use_case: "widget compliance" });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      vertical: "quantum-widgets",
      registered: true,
      counted: true,
      signals: 1,
      threshold: 500,
      build_queue_active: false,
    });
    expect((await signal({ vertical: "quantum-widgets", agent_id: "qw-1" })).body.counted).toBe(false);
    expect((await signal({ vertical: "quantum-widgets", agent_id: "qw-2" })).body.signals).toBe(2);
    const longest = "z".repeat(64);
    expect((await signal({ vertical: longest, agent_id: "qw-1" })).status).toBe(200);
    const rows = (await svc.request("/api/interest/summary")).body.verticals;
    expect(rows.find((r: { vertical: string }) => r.vertical === "quantum-widgets")).toMatchObject({
      title: "quantum-widgets",
      status: "proposed",
      signals: 2,
      remaining_to_activate: 498,
    });
    expect(rows.find((r: { vertical: string }) => r.vertical === longest)).toMatchObject({ status: "proposed", signals: 1 });
    expect(rows.map((r: { rank: number }) => r.rank)).toEqual(rows.map((_: unknown, i: number) => i + 1));
    // The per-client limits hold for new slugs as for listed ones: anonymous signals are capped per day.
    const anonymous = [];
    for (let i = 0; i < 4; i++) anonymous.push((await signal({ vertical: `anon-slug-${i}` }, "203.0.113.91")).status);
    expect(anonymous).toEqual([200, 200, 200, 429]);
    expect((await svc.request("/api/interest/summary")).body.verticals.map((r: { vertical: string }) => r.vertical)).not.toContain(
      "anon-slug-3",
    );
  });

  it("activates a build queue at 500 signals", async () => {
    // 500 agents behind 20 addresses, 25 each: within the per-client limit on new identities.
    await Promise.all(
      Array.from({ length: 499 }, (_, i) => signal({ vertical: "medical-analysis", agent_id: `med-${i}` }, `198.51.100.${i % 20}`)),
    );
    const at499 = (await svc.request("/api/interest/summary")).body.verticals.find(
      (v: { vertical: string }) => v.vertical === "medical-analysis",
    );
    expect(at499).toMatchObject({ rank: 1, signals: 499, build_queue_active: false, remaining_to_activate: 1 });
    expect((await signal({ vertical: "medical-analysis", agent_id: "med-499" }, "198.51.100.19")).body).toMatchObject({
      signals: 500,
      build_queue_active: true,
    });
    const at500 = (await svc.request("/api/interest/summary")).body.verticals[0];
    expect(at500).toMatchObject({ vertical: "medical-analysis", build_queue_active: true, remaining_to_activate: 0 });
  });
});
