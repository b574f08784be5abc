/** `layers=` on GET /api/demo over real HTTP: only the named layers, locks untouched, own ETag, errors. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
let member: string;

const demo = (query: string, key?: string, extra: Record<string, string> = {}) =>
  svc.request(`/api/demo?${query}`, { headers: { ...(key ? { "x-service-key": key } : {}), ...extra } });

beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()));
  member = (
    await svc.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: { vertical: "travel" } })
  ).body.keys[0].key;
});
afterAll(() => svc?.close());

describe("layers=", () => {
  it("returns only the named layers, says which were selected, and keeps every token estimate", async () => {
    const full = await demo("vertical=travel&node=trv-m1", member);
    const res = await demo("vertical=travel&node=trv-m1&layers=logic,action", member);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.node.layers).sort()).toEqual(["action", "logic"]);
    expect(res.body.node.layers.logic).toEqual(full.body.node.layers.logic);
    expect(res.body.node.selected_layers).toEqual(["logic", "action"]);
    expect(res.body.node.locked_layers).toEqual([]);
    expect(res.body.node.layer_tokens).toEqual(full.body.node.layer_tokens);
    expect(res.body.cta).toBe(full.body.cta);
    expect(full.body.node.selected_layers).toBeUndefined();
    expect(res.headers.get("ratelimit")).not.toBeNull();
  });

  it("does not unlock anything: a locked view stays locked", async () => {
    const res = await demo("vertical=travel&node=trv-m1&layers=logic");
    expect(res.status).toBe(200);
    expect(res.body.node.layers).toEqual({});
    expect(res.body.node.locked_layers).toEqual(["logic", "directive", "skill", "action"]);
    expect(res.body.node.selected_layers).toEqual(["logic"]);
    expect((await demo("vertical=legal&node=legal-one&layers=logic")).status).toBe(402);
  });

  it("works with lean", async () => {
    const res = await demo("vertical=a2a-handoff&node=a2a-one&lean=true&layers=skill");
    expect(Object.keys(res.body).sort()).toEqual(["next_nodes", "node"]);
    expect(Object.keys(res.body.node.layers)).toEqual(["skill"]);
  });

  it("has one ETag per selection whatever the order, distinct from the whole node's, and honours If-None-Match", async () => {
    const a = await demo("vertical=a2a-handoff&node=a2a-one&layers=action,logic,logic");
    const b = await demo("vertical=a2a-handoff&node=a2a-one&layers=logic,action");
    const whole = await demo("vertical=a2a-handoff&node=a2a-one");
    expect(a.headers.get("etag")).toBe(b.headers.get("etag"));
    expect(a.text).toBe(b.text);
    expect(a.headers.get("etag")).not.toBe(whole.headers.get("etag"));
    const again = await demo("vertical=a2a-handoff&node=a2a-one&layers=logic,action", undefined, {
      "if-none-match": a.headers.get("etag")!,
    });
    expect(again.status).toBe(304);
    expect(
      (await demo("vertical=a2a-handoff&node=a2a-one&layers=logic", undefined, { "if-none-match": a.headers.get("etag")! })).status,
    ).toBe(200);
  });

  it.each(["logic,wisdom", "", "logic,", "LOGIC"])("400 for layers=%j", async (layers) => {
    const res = await demo(`vertical=a2a-handoff&node=a2a-one&layers=${encodeURIComponent(layers)}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors[0].pointer).toBe("/query/layers");
  });

  it("400 on an index request, which carries no layers", async () => {
    expect((await demo("vertical=a2a-handoff&layers=logic")).status).toBe(400);
  });
});
