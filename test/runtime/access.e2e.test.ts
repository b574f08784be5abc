/** Every row of the access matrix of GET /api/demo, over real HTTP, plus lean, alias, ETag and errors. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { rpc } from "../mcp/_setup.ts";

let svc: TestService;
let travelTrial: string;
let aicTrial: string;
let travelMember: string;
let allKey: string;

async function adminIssue(body: Record<string, unknown>): Promise<string> {
  const res = await svc.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: body });
  expect(res.status).toBe(201);
  return res.body.keys[0].key;
}

beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()));
  travelTrial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "agent-travel", vertical: "travel" } })).body.key;
  aicTrial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "agent-aic" } })).body.key;
  travelMember = await adminIssue({ vertical: "travel", label: "member" });
  allKey = await adminIssue({ vertical: "all" });
});
afterAll(() => svc?.close());

const demo = (query: string, key?: string, extra: Record<string, string> = {}) =>
  svc.request(`/api/demo?${query}`, { headers: { ...(key ? { "x-service-key": key } : {}), ...extra } });

describe("anonymous callers", () => {
  it("see the index layer only on index-free verticals, with every layer locked and unlock hints", async () => {
    const res = await demo("vertical=travel&node=trv-m1");
    expect(res.status).toBe(200);
    expect(res.body.node.layers).toEqual({});
    expect(res.body.node.locked_layers).toEqual(["logic", "directive", "skill", "action"]);
    expect(res.body.cta).toMatch(/POST \/api\/trial/);
    expect(res.headers.get("ratelimit")).toBeNull();
  });
  it("get all four layers on fully open verticals", async () => {
    const res = await demo("vertical=a2a-handoff&node=a2a-one");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.node.layers).sort()).toEqual(["action", "directive", "logic", "skill"]);
    expect(res.body.node.locked_layers).toEqual([]);
  });
  it("get 402 with unlock options on a paid vertical that is not index-free", async () => {
    const res = await demo("vertical=legal&node=legal-one");
    expect(res.status).toBe(402);
    expect(res.body.code).toBe("payment_required");
    expect(res.body.unlock.membership.path).toBe("/api/checkout");
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });
  it("get a status placeholder for a vertical without content", async () => {
    const res = await demo("vertical=logistics");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ vertical: "logistics", status: "coming_soon", waitlist_registered: 0 });
    expect(res.body.join_waitlist.path).toBe("/api/waitlist");
  });
});

describe("trial keys", () => {
  it("unlock the first 5 travel modules; the rest show the free index layer with an unlock hint", async () => {
    const ok = await demo("vertical=travel&node=trv-m5", travelTrial);
    expect(ok.status).toBe(200);
    expect(ok.body.node.locked_layers).toEqual([]);
    const no = await demo("vertical=travel&node=trv-m6", travelTrial);
    expect(no.status).toBe(200);
    expect(no.body.node.locked_layers).toEqual(["logic", "directive", "skill", "action"]);
    expect(no.body.unlock.membership.vertical).toBe("travel");
  });
  it("unlock every ai-compliance node, also through the ethics alias", async () => {
    const res = await demo("vertical=ethics&node=aic-second", aicTrial);
    expect(res.status).toBe(200);
    expect(res.body.vertical).toBe("ai-compliance");
    expect(res.body.node.locked_layers).toEqual([]);
  });
  it("show another index-free vertical's free view, and give 403 where a vertical has no free view", async () => {
    const res = await demo("vertical=real-estate&node=re-one", aicTrial);
    expect(res.status).toBe(200);
    expect(res.body.node.layers).toEqual({});
    const paid = await demo("vertical=legal&node=legal-one", aicTrial);
    expect(paid.status).toBe(403);
    expect(paid.body.code).toBe("vertical_forbidden");
  });
});

describe("membership keys", () => {
  it("unlock their vertical and ai-compliance, not others", async () => {
    expect((await demo("vertical=travel&node=trv-m7", travelMember)).body.node.locked_layers).toEqual([]);
    expect((await demo("vertical=ai-compliance&node=aic-start", travelMember)).body.node.locked_layers).toEqual([]);
    const other = await demo("vertical=real-estate&node=re-two", travelMember);
    expect(other.status).toBe(200);
    expect(other.body.node.locked_layers).toEqual(["logic", "directive", "skill", "action"]);
  });
  it("an `all` key unlocks everything, including gated paid verticals", async () => {
    expect((await demo("vertical=legal&node=legal-one", allKey)).status).toBe(200);
    expect((await demo("vertical=real-estate&node=re-two", allKey)).body.node.locked_layers).toEqual([]);
  });
  it("metered responses carry RateLimit headers", async () => {
    const res = await demo("vertical=travel&node=trv-m1", travelMember);
    expect(res.headers.get("ratelimit-policy")).toContain('"hour";q=200;w=3600');
    expect(res.headers.get("ratelimit")).toMatch(/^"hour";r=\d+;t=\d+$/);
  });
});

describe("bad credentials are never anonymous: the free view with the warning, or 401 where there is none", () => {
  it.each([
    ["malformed", "svc_live_short"],
    ["unknown", "svc_live_" + "A".repeat(22)],
    ["garbage", "hello"],
  ])("%s key", async (_name, key) => {
    const res = await demo("vertical=travel&node=trv-m1", key);
    expect([res.status, res.headers.get("credential-problem")]).toEqual([200, "key_invalid"]);
    expect(res.body.node.locked_layers).toHaveLength(4);
    const paid = await demo("vertical=legal&node=legal-one", key);
    expect([paid.status, paid.body.code]).toEqual([401, "key_invalid"]);
  });
  it("a bad ?key= too", async () => {
    const res = await svc.request("/api/demo?vertical=travel&node=trv-m1&key=svc_trial_nope");
    expect([res.status, res.headers.get("credential-problem")]).toEqual([200, "key_invalid"]);
    expect((await svc.request("/api/demo?vertical=legal&node=legal-one&key=svc_trial_nope")).status).toBe(401);
  });
});

describe("did you mean", () => {
  it("names the closest vertical or node of a mistyped one, REST and MCP", async () => {
    const vertical = await demo("vertical=travle");
    expect([vertical.status, vertical.body.detail]).toEqual([400, '"travle" is not a vertical. Did you mean "travel"?']);
    const node = await demo("vertical=travel&node=trv-m7x");
    expect([node.status, node.body.detail]).toEqual([404, 'No node "trv-m7x" in travel. Did you mean "trv-m7"?']);
    expect((await demo("vertical=travel&node=completely-unrelated-name")).body.detail).toBe(
      'No node "completely-unrelated-name" in travel.',
    );
    const tool = (await rpc(svc, "tools/call", { name: "get_node", arguments: { vertical: "travel", node: "trv-m7x" } })).result;
    expect(tool.isError).toBe(true);
    expect(tool.content[0].text).toContain('Did you mean "trv-m7"?');
  });
});

describe("lean, ETag and parameter errors", () => {
  it("lean has exactly node and next_nodes", async () => {
    const res = await demo("vertical=travel&node=trv-m2&lean=true", travelTrial);
    expect(Object.keys(res.body).sort()).toEqual(["next_nodes", "node"]);
    const full = await demo("vertical=travel&node=trv-m2", travelTrial);
    expect(Object.keys(full.body).sort()).toEqual([
      "community_note",
      "confidence_calibration",
      "cta",
      "next_nodes",
      "node",
      "node_types_explained",
      "performance_preview",
      "vertical",
    ]);
    expect(full.text.length).toBeGreaterThan(res.text.length);
  });
  it("answers 304 to a matching If-None-Match, with the same ETag and Vary", async () => {
    const first = await demo("vertical=a2a-handoff&node=a2a-one");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const second = await demo("vertical=a2a-handoff&node=a2a-one", undefined, { "if-none-match": etag });
    expect(second.status).toBe(304);
    expect(second.headers.get("etag")).toBe(etag);
    expect(second.headers.get("vary")).toContain("X-Service-Key");
  });
  it.each([
    ["", 400, "vertical_missing"],
    ["vertical=atlantis", 400, "vertical_unknown"],
    ["vertical=travel&node=nope", 404, "node_not_found"],
    ["vertical=travel&lean=maybe", 400, "validation_failed"],
    ["vertical=travel&vertical=ethics", 400, "bad_request"],
  ])("?%s → %i %s", async (query, status, code) => {
    const res = await demo(query);
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect(res.body.instance).toMatch(/^urn:request:/);
  });
  it("unknown routes are problem+json 404", async () => {
    const res = await fetch(svc.url + "/nope");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect((await res.json()).code).toBe("not_found");
  });
});
