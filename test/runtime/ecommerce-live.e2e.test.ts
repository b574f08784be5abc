/**
 * Issue 40: ecommerce is a live paid vertical like travel, and every surface that names verticals
 * says so from the catalogue, over real HTTP on a fixture where ecommerce has content: status,
 * waitlist, demand signals, trial refusals, the OpenAPI description, llms.txt, the browse site and
 * the MCP resources and tools.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { rpc } from "../mcp/_setup.ts";

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()));
});
afterAll(() => svc?.close());

describe("ecommerce is live", () => {
  it("the status object names it among the live verticals and counts its waitlist", async () => {
    const status = await svc.request("/api/status");
    expect(status.status).toBe(200);
    expect(status.body.product_status).toMatch(/Live verticals: [^;]*\becommerce\b/);
    expect(status.body.product_status).not.toMatch(/\{\{/);
    expect(status.body.verticals.ecommerce).toEqual({ cohort: "inaugural", waitlist_registered: 0 });
  });

  it("its index is free, with the first 5 modules marked trial", async () => {
    const index = await svc.request("/api/demo?vertical=ecommerce");
    expect(index.status).toBe(200);
    expect(index.body.nodes.filter((n: { trial: boolean }) => n.trial).map((n: { id: string }) => n.id)).toEqual([
      "ecom-m1",
      "ecom-m2",
      "ecom-m3",
      "ecom-m4",
      "ecom-m5",
    ]);
  });

  it("takes waitlist entries as a paid vertical, listed as live, and refuses demand signals", async () => {
    const join = await svc.request("/api/waitlist", { method: "POST", json: { vertical: "ecommerce", agent_id: "shop-agent" } });
    expect(join.status).toBe(200);
    const overview = await svc.request("/api/waitlist");
    expect(overview.body.verticals.find((v: { vertical: string }) => v.vertical === "ecommerce")).toMatchObject({
      status: "live",
      waitlist_registered: 1,
    });
    const signal = await svc.request("/api/interest", { method: "POST", json: { vertical: "ecommerce", agent_id: "shop-agent" } });
    expect(signal.status).toBe(400);
    expect(signal.body.code).toBe("vertical_not_allowed");
    const summary = await svc.request("/api/interest/summary");
    expect(summary.body.verticals.map((v: { vertical: string }) => v.vertical)).not.toContain("ecommerce");
  });

  it("a trial refusal lists the trial verticals of the catalogue, ecommerce with its first 5 modules", async () => {
    const res = await svc.request("/api/trial", { method: "POST", json: { agent_id: "shop-agent", vertical: "logistics" } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("vertical_not_allowed");
    expect(res.body.detail).toContain("ecommerce (the first 5 modules)");
    expect(res.body.detail).toContain("ai-compliance (every node)");
    expect(res.body.errors[0].message).toBe("must be one of ai-compliance, travel, ecommerce");
    const ok = await svc.request("/api/trial", { method: "POST", json: { agent_id: "shop-agent", vertical: "ecommerce" } });
    expect(ok.status).toBe(200);
    expect(ok.body.instructions.unlocks).toContain("first 5 ecommerce modules");
  });

  it("the OpenAPI description names it live with its trial rule, derived from the catalogue", async () => {
    // /openapi.json is not in its own description, so it is fetched past the contract check.
    const doc = await (await fetch(`${svc.url}/openapi.json`)).json();
    for (const description of [doc.paths["/api/demo"].get.description, doc.paths["/api/trial"].post.description]) {
      expect(description).toContain("ecommerce (index free; trial: the first 5 modules)");
      expect(description).toMatch(/coming soon \(waitlist and demand signals\): (?![^.]*ecommerce)[^.]*\./);
    }
    expect(doc.paths["/api/demo"].get.description).not.toContain("travel: the first 5 modules");
  });

  it("llms.txt, the browse home page and the MCP resources and tools show it", async () => {
    expect((await svc.request("/llms.txt")).text).toContain("/api/demo?vertical=ecommerce&lean=true");
    expect((await svc.request("/browse")).text).toContain('href="/browse/ecommerce"');
    const resources = (await rpc(svc, "resources/list")).result.resources.map((r: { uri: string }) => r.uri);
    expect(resources).toContain("vkr://ecommerce");
    expect(resources).toContain("vkr://ecommerce/ecom-m6");
    const listed = (await rpc(svc, "tools/call", { name: "list_verticals", arguments: {} })).result.structuredContent;
    expect(JSON.stringify(listed)).toMatch(/"slug":"ecommerce"[^}]*"status":"live"|"status":"live"[^}]*"slug":"ecommerce"/);
  });
});
