/**
 * Free stays free, over real HTTP, REST and MCP. The spec: "The index layer is always
 * free" and the fully open verticals need "no key, no payment". So (19.1) a valid key that does not
 * unlock a node gets the free view, 200 with the index layer, `locked_layers` and a
 * machine-readable `unlock` hint, as an anonymous caller does; (19.2) free reads with a key are
 * never metered nor refused for quota, only gated layers count (windows and the 500-call trial cap).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { rpc } from "../mcp/_setup.ts";

let dist: string;
let svc: TestService;
beforeAll(async () => {
  dist = buildContentTo(writeFixtureContent());
  svc = await startTestService(dist);
});
afterAll(() => svc?.close());

const issue = async (s: TestService, vertical: string) =>
  (await s.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: { vertical } })).body.keys[0]
    .key as string;
const trial = async (s: TestService, agent: string, vertical?: string) =>
  (await s.request("/api/trial", { method: "POST", json: { agent_id: agent, ...(vertical ? { vertical } : {}) } })).body.key as string;
const demo = (s: TestService, query: string, key?: string) =>
  s.request(`/api/demo?${query}`, { headers: key ? { "x-service-key": key } : {} });
const usage = async (s: TestService, key: string) => (await s.request("/api/keys", { headers: { "x-service-key": key } })).body.usage;
const getNode = async (s: TestService, args: Record<string, unknown>, key?: string) =>
  (await rpc(s, "tools/call", { name: "get_node", arguments: args }, key ? { "x-service-key": key } : {})).result;

describe("19.1 a valid key that does not unlock a node gets the free view with an unlock hint", () => {
  it.each([
    ["a travel trial key on travel module 6", "travel", "trv-m6", "travel"],
    ["a travel membership key on a real-estate node", "real-estate", "re-one", "travel-member"],
    ["an ai-compliance trial key on a travel node", "travel", "trv-m2", "ai-compliance"],
  ])("%s: 200, index layer only, as anonymous, plus `unlock` (REST and MCP)", async (_name, vertical, node, who) => {
    const key = who === "travel-member" ? await issue(svc, "travel") : await trial(svc, `agent-191-${who}`, who);
    const before = await usage(svc, key);
    const res = await demo(svc, `vertical=${vertical}&node=${node}`, key);
    expect(res.status).toBe(200);
    expect(res.body.node.layers).toEqual({});
    expect(res.body.node.locked_layers).toEqual(["logic", "directive", "skill", "action"]);
    const anonymous = await demo(svc, `vertical=${vertical}&node=${node}`);
    expect(res.body).toEqual(anonymous.body);
    expect(res.body.unlock.membership).toMatchObject({ vertical, method: "POST", path: "/api/checkout", checkout_info: "/api/checkout" });
    expect(res.body.unlock.per_use).toEqual({ header: "pay-network-pay-id", price_usd: "0.002" });

    const result = await getNode(svc, { vertical, node }, key);
    expect(result.isError).toBeFalsy();
    // MCP answers knowledge only by default (REST's lean view) and keeps the same unlock hint.
    const lean = await demo(svc, `vertical=${vertical}&node=${node}&lean=true`);
    expect(result.structuredContent).toEqual({ unlock: res.body.unlock, ...lean.body });
    // The free view is not metered.
    expect(await usage(svc, key)).toEqual(before);
  });

  it("the hint offers a trial only where a trial key unlocks the node", async () => {
    expect((await demo(svc, "vertical=travel&node=trv-m5")).body.unlock.trial).toMatchObject({
      method: "POST",
      path: "/api/trial",
      body: { vertical: "travel" },
    });
    expect((await demo(svc, "vertical=travel&node=trv-m6")).body.unlock.trial).toBeUndefined();
    expect((await demo(svc, "vertical=ai-compliance&node=aic-start")).body.unlock.membership.any_membership).toBe(true);
  });

  it("a vertical with no free index still refuses a key that does not cover it, without repeating itself", async () => {
    const key = await issue(svc, "ai-compliance");
    const res = await demo(svc, "vertical=legal&node=legal-one", key);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("vertical_forbidden");
    expect(res.body.detail).toBe("This key unlocks ai-compliance, not legal.");
    expect(res.body.unlock.membership.vertical).toBe("legal");
    const travel = await issue(svc, "travel");
    expect((await demo(svc, "vertical=legal&node=legal-one", travel)).body.detail).toBe(
      "This key unlocks travel and ai-compliance, not legal.",
    );
  });
});

describe("19.2 free reads with a key are never metered nor refused for quota", () => {
  it.each([
    ["an index-free index", "vertical=travel"],
    ["a lean index", "vertical=real-estate&lean=true"],
    ["a fully open node", "vertical=a2a-handoff&node=a2a-one"],
    ["a fully open index", "vertical=a2a-handoff"],
  ])("%s costs a trial key nothing (REST and MCP)", async (_name, query) => {
    const key = await trial(svc, `agent-192-${query}`, "travel");
    const before = await usage(svc, key);
    const res = await demo(svc, query, key);
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit")).toBeNull();
    const params = new URLSearchParams(query);
    const node = params.get("node");
    const args = { vertical: params.get("vertical"), ...(params.get("lean") ? { lean: true } : {}) };
    const result = node
      ? await getNode(svc, { ...args, node }, key)
      : (await rpc(svc, "tools/call", { name: "get_index", arguments: args }, { "x-service-key": key })).result;
    expect(result.isError).toBeFalsy();
    expect(await usage(svc, key)).toEqual(before);
  });

  it("after the hourly window is used up by gated reads, free content still answers 200 to that key", async () => {
    const s = await startTestService(dist, { RETRIEVAL_LIMITS: JSON.stringify({ hourly_rate_limit: 5 }) });
    try {
      const key = await issue(s, "travel");
      for (let i = 0; i < 5; i++) expect((await demo(s, "vertical=travel&node=trv-m1", key)).status).toBe(200);
      expect((await demo(s, "vertical=travel&node=trv-m1", key)).status).toBe(429);
      expect((await demo(s, "vertical=travel", key)).status).toBe(200);
      expect((await demo(s, "vertical=a2a-handoff&node=a2a-one", key)).status).toBe(200);
      expect((await getNode(s, { vertical: "a2a-handoff", node: "a2a-one" }, key)).isError).toBeFalsy();
      expect((await getNode(s, { vertical: "travel", node: "trv-m1" }, key)).isError).toBe(true);
      expect((await usage(s, key)).hour).toBe(5);
    } finally {
      await s.close();
    }
  });

  it("the 500-call trial cap counts gated retrievals only: a burst of free reads leaves it whole", async () => {
    const s = await startTestService(dist, { ANON_RATE_PER_MINUTE: "100000" });
    try {
      const key = await trial(s, "agent-192-cap", "travel");
      const free = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          demo(s, i % 2 ? "vertical=travel" : "vertical=a2a-handoff&node=a2a-one", key).then((r) => r.status),
        ),
      );
      expect(free.every((status) => status === 200)).toBe(true);
      const before = await s.request("/api/verify", { headers: { "x-service-key": key } });
      expect(before.body.remaining_quota.trial).toBe(500);
      expect((await demo(s, "vertical=travel&node=trv-m1", key)).status).toBe(200);
      expect((await s.request("/api/verify", { headers: { "x-service-key": key } })).body.remaining_quota.trial).toBe(499);
    } finally {
      await s.close();
    }
  });

  it("free reads with a key share the per-client limit of anonymous reads, which never touches gated reads", async () => {
    const s = await startTestService(dist, { ANON_RATE_PER_MINUTE: "3" });
    try {
      const key = await issue(s, "travel");
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await demo(s, "vertical=travel", key)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect((await demo(s, "vertical=travel", key)).body.code).toBe("rate_limited");
      expect((await demo(s, "vertical=travel&node=trv-m7", key)).status).toBe(200);
      expect((await usage(s, key)).hour).toBe(1);
    } finally {
      await s.close();
    }
  });

  it("rule evaluation counts over gated layers only", async () => {
    const key = await issue(svc, "travel");
    const free = await svc.request("/api/evaluate", {
      method: "POST",
      headers: { "x-service-key": key },
      json: { vertical: "a2a-handoff", node: "a2a-one", facts: {} },
    });
    expect(free.status).toBe(200);
    expect((await usage(svc, key)).hour).toBe(0);
    const open = await svc.request("/api/evaluate", {
      method: "POST",
      headers: { "x-service-key": key },
      json: { vertical: "travel", node: "trv-m1", facts: { condition_a: true, condition_b: false } },
    });
    expect(open.status).toBe(200);
    expect((await usage(svc, key)).hour).toBe(1);
  });
});
