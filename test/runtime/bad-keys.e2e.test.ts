/**
 * Free pages stay free for bad keys. A malformed, unknown, revoked or expired key,
 * sent as the header, the `?key=` query (GET /api/demo, the only route that takes one) or the
 * /browse cookie, reads what a caller without a key reads, with the `Credential-Problem` header:
 * `/browse/*`, `/browse/search`, `/api/search`, single nodes of index-free verticals (REST and
 * MCP). Pages show a visible notice linking to /browse/key, and a bad cookie is cleared. Gated
 * content keeps the 401: rules to evaluate, a paid vertical without a free index.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { rpc } from "../mcp/_setup.ts";

let svc: TestService;
const keys: Record<string, string> = {};
const HTML = { accept: "text/html" };

beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()));
  const admin = { authorization: `Bearer ${ADMIN_KEY}` };
  keys.revoked = (await svc.request("/api/keys", { method: "POST", headers: admin, json: { vertical: "travel" } })).body.keys[0].key;
  expect((await svc.request("/api/admin/keys/revoke", { method: "POST", headers: admin, json: { key: keys.revoked } })).status).toBe(200);
  keys.expired = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "agent-27-3", vertical: "travel" } })).body.key;
  svc.clock.advance(25 * 3_600_000);
  keys.unknown = "svc_live_" + "A".repeat(22);
  keys.malformed = "not-a-key";
});
afterAll(() => svc?.close());

const KINDS = [
  ["unknown", "key_invalid"],
  ["malformed", "key_invalid"],
  ["revoked", "key_revoked"],
  ["expired", "key_expired"],
] as const;

const cookie = (key: string) => ({ cookie: `vkr_key=${encodeURIComponent(key)}` });

describe.each(KINDS)("a %s key", (kind, code) => {
  it("header or query on a node of an index-free vertical: the free view with Credential-Problem", async () => {
    for (const [how, res] of [
      ["header", await svc.request("/api/demo?vertical=travel&node=trv-m2", { headers: { "x-service-key": keys[kind]! } })],
      ["query", await svc.request(`/api/demo?vertical=travel&node=trv-m2&key=${encodeURIComponent(keys[kind]!)}`)],
    ] as const) {
      expect(res.status, how).toBe(200);
      expect(res.headers.get("credential-problem"), how).toBe(code);
      expect(res.body.credential_problem, how).toMatchObject({ code });
      expect(res.body.node.locked_layers, how).toEqual(["logic", "directive", "skill", "action"]);
      const { credential_problem: _warning, ...rest } = res.body;
      expect(rest, how).toEqual((await svc.request("/api/demo?vertical=travel&node=trv-m2")).body);
    }
  });

  it("the same node through MCP get_node", async () => {
    const result = (
      await rpc(
        svc,
        "tools/call",
        { name: "get_node", arguments: { vertical: "travel", node: "trv-m2" } },
        { "x-service-key": keys[kind]! },
      )
    ).result;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.credential_problem.code).toBe(code);
    expect(result.structuredContent.node.locked_layers.length).toBe(4);
  });

  it("GET /api/search and the MCP search tool: the anonymous results with Credential-Problem", async () => {
    const anonymous = await svc.request("/api/search?q=fixture");
    const res = await svc.request("/api/search?q=fixture", { headers: { "x-service-key": keys[kind]! } });
    expect(res.status).toBe(200);
    expect(res.headers.get("credential-problem")).toBe(code);
    expect(res.body.credential_problem).toMatchObject({ code });
    expect(res.body.results).toEqual(anonymous.body.results);
    const result = (await rpc(svc, "tools/call", { name: "search", arguments: { q: "fixture" } }, { "x-service-key": keys[kind]! })).result;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.credential_problem.code).toBe(code);
  });

  it.each([
    ["a vertical's graph", "/browse/travel"],
    ["a node page", "/browse/travel/trv-m2"],
    ["a node's markdown twin", "/browse/travel/trv-m2.md"],
    ["the search page", "/browse/search?q=fixture"],
    ["the verticals", "/browse"],
  ])("%s with the key in the header: the free page, Credential-Problem and a notice linking to /browse/key", async (_name, path) => {
    const res = await svc.request(path, { headers: { ...HTML, "x-service-key": keys[kind]! } });
    expect(res.status).toBe(200);
    expect(res.headers.get("credential-problem")).toBe(code);
    if (path.endsWith(".md")) expect(res.text).toMatch(/^> \*\*.*\*\*.*\/browse\/key/m);
    else expect(res.text).toMatch(/<p class="notice"[^>]*>[\s\S]*?<a href="\/browse\/key">/);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it.each([
    ["a vertical's graph", "/browse/travel"],
    ["a node page", "/browse/travel/trv-m2"],
    ["the search page", "/browse/search?q=fixture"],
    ["the verticals", "/browse"],
    ["the key form", "/browse/key"],
  ])("%s with the key in the cookie: the free page, the notice, and the cookie cleared", async (_name, path) => {
    const res = await svc.request(path, { headers: { ...HTML, ...cookie(keys[kind]!) } });
    expect(res.status).toBe(200);
    expect(res.headers.get("credential-problem")).toBe(code);
    expect(res.text).toMatch(/<p class="notice"[^>]*>[\s\S]*?<a href="\/browse\/key">/);
    expect(res.headers.get("set-cookie")).toMatch(/^vkr_key=; Path=\/browse; .*Max-Age=0/);
    if (path === "/browse/travel/trv-m2") expect(res.text).toContain('data-layer="logic"><h2>Logic <span class="badge">locked</span>');
  });

  it("gated content keeps the 401: rules to evaluate, a paid vertical without a free index", async () => {
    const evaluation = await svc.request("/api/evaluate", {
      method: "POST",
      headers: { "x-service-key": keys[kind]! },
      json: { vertical: "travel", node: "trv-m1", facts: {} },
    });
    expect([evaluation.status, evaluation.body.code]).toEqual([401, code]);
    const paid = await svc.request("/api/demo?vertical=legal&node=legal-one", { headers: { "x-service-key": keys[kind]! } });
    expect([paid.status, paid.body.code]).toEqual([401, code]);
    const page = await svc.request("/browse/legal/legal-one", { headers: { ...HTML, ...cookie(keys[kind]!) } });
    expect(page.status).toBe(401);
    expect(page.headers.get("set-cookie")).toMatch(/Max-Age=0/);
  });
});

it("a good key in the cookie is named on /browse/key, and saving one says so", async () => {
  const good = (
    await svc.request("/api/keys", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      json: { vertical: "travel", label: "browse-27" },
    })
  ).body.keys[0];
  const form = await svc.request("/browse/key", { headers: { ...HTML, ...cookie(good.key) } });
  expect(form.status).toBe(200);
  expect(form.text).toContain(good.id);
  expect(form.text).not.toContain(good.key);
  const saved = await fetch(`${svc.url}/browse/key`, {
    method: "POST",
    redirect: "manual",
    headers: { origin: svc.url, "content-type": "application/x-www-form-urlencoded" },
    body: `key=${encodeURIComponent(good.key)}`,
  });
  expect(saved.status).toBe(303);
  expect(saved.headers.get("location")).toBe("/browse/key?saved=1");
  const after = await svc.request("/browse/key?saved=1", { headers: { ...HTML, ...cookie(good.key) } });
  expect(after.text).toMatch(/class="saved"[^>]*>[^<]*[Ss]aved/);
  expect(after.text).toContain(good.id);
});
