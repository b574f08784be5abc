/**
 * An invalid, revoked or expired key loses no free content. The decision: on free
 * content (an index, a fully open vertical, and the free locked view of a gated node
 * of an index-free vertical) the key is ignored and the free view is served with a warning, the
 * `Credential-Problem` header and a `credential_problem` member; content with no free view (a paid
 * vertical without a free index, rules to evaluate) keeps the 401. Over real HTTP, REST and MCP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { rpc } from "../mcp/_setup.ts";

let svc: TestService;
const keys: Record<string, string> = {};

beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()));
  const admin = { authorization: `Bearer ${ADMIN_KEY}` };
  keys.revoked = (await svc.request("/api/keys", { method: "POST", headers: admin, json: { vertical: "travel" } })).body.keys[0].key;
  expect((await svc.request("/api/admin/keys/revoke", { method: "POST", headers: admin, json: { key: keys.revoked } })).status).toBe(200);
  keys.expired = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "agent-193", vertical: "travel" } })).body.key;
  // Every other test here reads with this clock: a trial key lasts 24 hours, the others never expire.
  svc.clock.advance(25 * 3_600_000);
  keys.invalid = "svc_live_" + "A".repeat(22);
});
afterAll(() => svc?.close());

const FREE = [
  ["an index-free index", "travel", null],
  ["a fully open node", "a2a-handoff", "a2a-one"],
  ["a fully open index", "a2a-handoff", null],
] as const;
const CODES = [
  ["invalid", "key_invalid"],
  ["revoked", "key_revoked"],
  ["expired", "key_expired"],
] as const;

describe.each(CODES)("an %s key", (kind, code) => {
  it.each(FREE)(`on %s: 200, the free view, Credential-Problem: ${code} (REST)`, async (_name, vertical, node) => {
    const query = `vertical=${vertical}${node ? `&node=${node}` : ""}`;
    const res = await svc.request(`/api/demo?${query}`, { headers: { "x-service-key": keys[kind]! } });
    expect(res.status).toBe(200);
    expect(res.headers.get("credential-problem")).toBe(code);
    expect(res.headers.get("etag")).toBeNull();
    expect(res.body.credential_problem).toMatchObject({ code, title: expect.any(String), detail: expect.stringContaining("ignored") });
    const { credential_problem: _warning, ...rest } = res.body;
    expect(rest).toEqual((await svc.request(`/api/demo?${query}`)).body);
  });

  it.each(FREE)("on %s: the same through MCP", async (_name, vertical, node) => {
    const tool = node ? { name: "get_node", arguments: { vertical, node } } : { name: "get_index", arguments: { vertical } };
    const result = (await rpc(svc, "tools/call", tool, { "x-service-key": keys[kind]! })).result;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.credential_problem.code).toBe(code);
  });

  it("on a gated node of an index-free vertical: its free locked view with the warning; 401 where there is no free view, REST and MCP", async () => {
    const res = await svc.request("/api/demo?vertical=travel&node=trv-m1", { headers: { "x-service-key": keys[kind]! } });
    expect([res.status, res.headers.get("credential-problem")]).toEqual([200, code]);
    expect(res.body.node.locked_layers).toHaveLength(4);
    const paid = await svc.request("/api/demo?vertical=legal&node=legal-one", { headers: { "x-service-key": keys[kind]! } });
    expect([paid.status, paid.body.code]).toEqual([401, code]);
    const result = (
      await rpc(
        svc,
        "tools/call",
        { name: "get_node", arguments: { vertical: "legal", node: "legal-one" } },
        { "x-service-key": keys[kind]! },
      )
    ).result;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain(code);
    const rules = (
      await rpc(
        svc,
        "tools/call",
        { name: "evaluate_rules", arguments: { vertical: "travel", node: "trv-m1", facts: {} } },
        { "x-service-key": keys[kind]! },
      )
    ).result;
    expect(rules.isError).toBe(true);
    expect(rules.content[0].text).toContain(code);
  });
});

it("a lean index with a bad ?key= is still valid JSON with the warning first", async () => {
  const res = await svc.request(`/api/demo?vertical=real-estate&lean=true&key=svc_trial_nope`);
  expect(res.status).toBe(200);
  expect(res.text.startsWith('{"credential_problem":{"code":"key_invalid"')).toBe(true);
  expect(res.body.nodes.length).toBeGreaterThan(0);
  // A vertical without content is free too: its placeholder, with the warning.
  const placeholder = await svc.request(`/api/demo?vertical=logistics`, { headers: { "x-service-key": keys.revoked! } });
  expect(placeholder.status).toBe(200);
  expect(placeholder.headers.get("credential-problem")).toBe("key_revoked");
  expect(placeholder.body).toMatchObject({ vertical: "logistics", status: "coming_soon", credential_problem: { code: "key_revoked" } });
});
