/** POST /api/evaluate over real HTTP: outcomes with trace and citation, missing facts, fact validation, access and metering. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
let travelMember: string;
let travelTrial: string;
let aicTrial: string;

const issue = async (vertical: string) =>
  (await svc.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: { vertical } })).body.keys[0]
    .key as string;
const evaluate = (json: unknown, key?: string) =>
  svc.request("/api/evaluate", { method: "POST", headers: key ? { "x-service-key": key } : {}, json });
const usage = async (key: string) => (await svc.request("/api/keys", { headers: { "x-service-key": key } })).body.usage.hour as number;
const trv = (facts: Record<string, unknown>) => ({ vertical: "travel", node: "trv-m1", facts });

beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()));
  travelMember = await issue("travel");
  travelTrial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "eval-agent", vertical: "travel" } })).body.key;
  aicTrial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "eval-agent-aic" } })).body.key;
});
afterAll(() => svc?.close());

describe("answers", () => {
  it("names the outcome that holds, with the full gate trace and the citation", async () => {
    const res = await evaluate(trv({ condition_a: true, condition_b: false }), travelMember);
    expect(res.status).toBe(200);
    const node = await svc.request("/api/demo?vertical=travel&node=trv-m1", { headers: { "x-service-key": travelMember } });
    expect(res.body).toMatchObject({ vertical: "travel", node: "trv-m1", version: node.body.node.version, confidence_required: 1 });
    expect(res.body.holds).toEqual(["outcome_x"]);
    expect(res.body.undetermined).toEqual([]);
    expect(res.body.missing_facts).toEqual([]);
    expect(res.body.rules).toEqual([
      expect.objectContaining({
        id: "rule-x",
        then: "outcome_x",
        value: true,
        citation: "Fixture Regulation, Art. 1(1)",
        source: expect.objectContaining({ id: "fixture" }),
      }),
    ]);
    expect(res.body.rules[0].trace).toEqual({
      op: "all",
      value: true,
      reason: "every part is true",
      args: [
        { op: "fact", name: "condition_a", value: true, reason: "fact is true" },
        {
          op: "not",
          value: true,
          reason: "negates false",
          args: [{ op: "fact", name: "condition_b", value: false, reason: "fact is false" }],
        },
      ],
    });
  });

  it("leaves an outcome undetermined when a needed fact is missing, and asks for it", async () => {
    const res = await evaluate(trv({ condition_a: true }), travelMember);
    expect(res.status).toBe(200);
    expect(res.body.holds).toEqual([]);
    expect(res.body.undetermined).toEqual(["outcome_x"]);
    expect(res.body.missing_facts).toEqual([{ id: "condition_b", question: "Is condition B true?", decides: ["outcome_x"], settles: 1 }]);
    expect(res.body.ask_first).toBe("condition_b");
    expect(res.body.rules[0]).toMatchObject({ value: null, missing_facts: ["condition_b"] });
  });

  it("decides without a fact that cannot change the answer", async () => {
    const res = await evaluate(trv({ condition_a: false }), travelMember);
    expect(res.body).toMatchObject({ holds: [], does_not_hold: ["outcome_x"], undetermined: [], missing_facts: [] });
  });

  it("answers the same on the ethics alias and for fully open verticals without credentials", async () => {
    const aic = await evaluate({ vertical: "ethics", node: "aic-start", facts: { condition_a: true, condition_b: true } }, aicTrial);
    expect(aic.body).toMatchObject({ vertical: "ai-compliance", node: "aic-start", does_not_hold: ["outcome_x"] });
    const open = await evaluate({ vertical: "a2a-handoff", node: "a2a-one", facts: {} });
    expect(open.status).toBe(200);
    // A node without rules: empty results, never an error.
    expect(open.body).toMatchObject({ holds: [], does_not_hold: [], undetermined: [], missing_facts: [], outcomes: [], rules: [] });
    expect(open.headers.get("ratelimit")).toBeNull();
  });
});

describe("facts", () => {
  it.each([
    ["a string", "yes"],
    ["a number", 1],
    ["null", null],
    ["an object", { value: true }],
  ])("400 validation_failed for %s", async (_name, value) => {
    const res = await evaluate(trv({ condition_a: value }), travelMember);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors.map((e: any) => e.pointer)).toContain("/facts/condition_a");
  });

  it("400 for a fact the node does not declare, listing the declared facts", async () => {
    const res = await evaluate(trv({ condition_a: true, condition_c: true }), travelMember);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors).toEqual([{ pointer: "/facts/condition_c", message: "not a fact of this node" }]);
    expect(res.body.declared_facts).toEqual([
      { id: "condition_a", question: "Is condition A true?" },
      { id: "condition_b", question: "Is condition B true?" },
    ]);
  });

  it("400 for a body without facts or with extra members", async () => {
    expect((await evaluate({ vertical: "travel", node: "trv-m1" }, travelMember)).status).toBe(400);
    expect((await evaluate({ ...trv({}), guess: true }, travelMember)).status).toBe(400);
  });
});

describe("access and metering", () => {
  it("402 payment_required for an anonymous caller: the logic layer of an index-free vertical is locked", async () => {
    const res = await evaluate(trv({ condition_a: true }));
    expect(res.status).toBe(402);
    expect(res.body.code).toBe("payment_required");
    expect(res.body.unlock.trial.path).toBe("/api/trial");
    // The declared facts of a locked node are not revealed either.
    expect((await evaluate(trv({ nope: true }))).status).toBe(402);
    expect((await evaluate({ vertical: "legal", node: "legal-one", facts: {} })).status).toBe(402);
  });

  it("403 as on a content request: another vertical, or a module outside the trial", async () => {
    const other = await evaluate(trv({}), aicTrial);
    expect(other.status).toBe(403);
    expect(other.body.code).toBe("vertical_forbidden");
    const module = await evaluate({ vertical: "travel", node: "trv-m6", facts: {} }, travelTrial);
    expect(module.status).toBe(403);
    expect(module.body.code).toBe("module_not_in_trial");
  });

  it("answers a per-use payment token as a content request does (402 per_use_not_accepted where no agent payment network is configured)", async () => {
    const res = await svc.request("/api/evaluate", { method: "POST", headers: { "pay-network-pay-id": "tok_123" }, json: trv({}) });
    expect(res.status).toBe(402);
    expect(res.body.code).toBe("per_use_not_accepted");
    expect(res.body.hint).toMatch(/POST \/api\/trial/);
    expect((await svc.request("/api/demo?vertical=travel&node=trv-m1", { headers: { "pay-network-pay-id": "tok_123" } })).status).toBe(402);
  });

  it("401 for a bad key, 404 for an unknown node, 400 for an unknown vertical", async () => {
    expect((await evaluate(trv({}), "svc_live_" + "A".repeat(22))).status).toBe(401);
    expect((await evaluate({ vertical: "travel", node: "nope", facts: {} }, travelMember)).status).toBe(404);
    expect((await evaluate({ vertical: "astrology", node: "x", facts: {} }, travelMember)).body.code).toBe("vertical_unknown");
  });

  it("meters an answer as one retrieval and a refusal not at all", async () => {
    const key = await issue("travel");
    const ok = await evaluate(trv({ condition_a: true }), key);
    expect(ok.headers.get("ratelimit")).toMatch(/^"hour";r=199;/);
    await evaluate(trv({ condition_a: "yes" }), key);
    await evaluate(trv({ unknown_fact: true }), key);
    expect(await usage(key)).toBe(1);
  });
});

describe("as_of: one date for the date facts (real content)", () => {
  let real: TestService;
  let key: string;
  beforeAll(async () => {
    const { join } = await import("node:path");
    const { REPO_ROOT } = await import("../build/_fixtures.ts");
    real = await startTestService(join(REPO_ROOT, "dist"));
    key = (
      await real.request("/api/keys", {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        json: { vertical: "ai-compliance" },
      })
    ).body.keys[0].key;
  });
  afterAll(() => real?.close());
  const timeline = (body: Record<string, unknown>) =>
    real.request("/api/evaluate", {
      method: "POST",
      headers: { "x-service-key": key },
      json: { vertical: "ai-compliance", node: "aic-timeline", ...body },
    });

  it("derives every date fact from as_of and echoes them; a date-time counts for the day it names", async () => {
    const res = await timeline({ facts: { annex_iii_high_risk: true, annex_i_high_risk: false }, as_of: "2026-09-01T23:30:00-05:00" });
    expect(res.status).toBe(200);
    expect(res.body.as_of).toBe("2026-09-01");
    expect(res.body.derived_facts).toMatchObject({ event_on_or_after_2026_08_02: true, event_on_or_after_2026_12_02: false });
    expect(res.body.does_not_hold).toContain("high_risk_dates_reached");
    expect(res.body.missing_facts.map((f: { id: string }) => f.id)).not.toContain("as_of");
  });

  it("asks one question for the date instead of one per date fact", async () => {
    const res = await timeline({ facts: { annex_iii_high_risk: true } });
    expect(res.status).toBe(200);
    const ids = res.body.missing_facts.map((f: { id: string }) => f.id);
    expect(ids).toContain("as_of");
    expect(ids.filter((id: string) => id.startsWith("event_on_or_after_"))).toEqual([]);
  });

  it("refuses a fact that contradicts as_of, and an impossible date", async () => {
    const conflict = await timeline({ facts: { event_on_or_after_2027_12_02: true }, as_of: "2026-09-01" });
    expect(conflict.status).toBe(400);
    expect(conflict.headers.get("content-type")).toContain("application/problem+json");
    expect(conflict.body).toMatchObject({ code: "validation_failed", errors: [{ pointer: "/facts/event_on_or_after_2027_12_02" }] });
    const impossible = await timeline({ facts: {}, as_of: "2026-02-30" });
    expect(impossible.status).toBe(400);
    expect(impossible.body.errors[0].pointer).toBe("/as_of");
    const malformed = await timeline({ facts: {}, as_of: "1 Sep 2026" });
    expect(malformed.status).toBe(400);
  });
});
