/**
 * The browse site, llms.txt and the negotiated root over real HTTP. Pages come from the
 * build (dist/browse); these tests check what each caller may read and that the graph has one
 * shape per node.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { peopleFixtureDist } from "./_fixture.ts";

let svc: TestService;
let travelTrial: string;
let aicTrial: string;

beforeAll(async () => {
  svc = await startTestService(peopleFixtureDist());
  travelTrial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "browse-suite", vertical: "travel" } })).body.key;
  aicTrial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "browse-suite" } })).body.key;
});
afterAll(() => svc?.close());

const rects = (html: string) => [...html.matchAll(/<rect class="node[^"]*" data-node="([^"]+)"/g)].map((m) => m[1]);

describe("GET /", () => {
  it("answers HTML to browsers and a JSON description to agents", async () => {
    const page = await svc.request("/", { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("vary")).toMatch(/Accept/);
    expect(page.text).toContain('href="/browse"');
    expect(page.text).toContain('href="/docs"');
    const json = await svc.request("/", { headers: { accept: "application/json" } });
    expect(json.body).toMatchObject({
      object: "service_description",
      links: { docs: "/docs", browse: "/browse", openapi: "/openapi.json", mcp: "/mcp" },
    });
    // The MCP endpoint is advertised on the home page too.
    expect(page.text).toMatch(/<code>\/mcp<\/code> \(Streamable HTTP\)/);
    expect(json.body.verticals.find((v: { slug: string }) => v.slug === "travel")).toMatchObject({ status: "live", nodes: 7 });
    expect((await svc.request("/", { headers: { accept: "text/html;q=0.5, application/json" } })).headers.get("content-type")).toMatch(
      /json/,
    );
  });
});

describe("/docs", () => {
  it("has one h1 in the HTML as served, outside the fallback for browsers without script", async () => {
    // Plain fetch: /docs is the reference's own page, not an operation of the description it renders.
    const res = await fetch(`${svc.url}/docs`);
    expect(res.status).toBe(200);
    const served = (await res.text()).replace(/<noscript>[\s\S]*?<\/noscript>/g, "");
    expect([...served.matchAll(/<h1[\s>][\s\S]*?<\/h1>/g)].map((m) => m[0])).toEqual([expect.stringMatching(/API reference/)]);
  });
});

describe("the browse site", () => {
  it("lists the verticals with their status and links to /docs", async () => {
    const res = await svc.request("/browse");
    expect(res.status).toBe(200);
    expect(res.text).toContain('href="/docs"');
    expect(res.text).toMatch(/data-vertical="travel"[\s\S]*?live/);
    expect(res.text).toContain('href="/browse/ai-compliance"');
    expect(res.text).not.toMatch(/<script/i);
  });

  it("draws a vertical's index as an SVG graph: one shape per node, next_nodes as edges, trial modules marked", async () => {
    const res = await svc.request("/browse/travel");
    expect(res.status).toBe(200);
    expect(rects(res.text).sort()).toEqual(["trv-m1", "trv-m2", "trv-m3", "trv-m4", "trv-m5", "trv-m6", "trv-m7"]);
    expect([...res.text.matchAll(/<rect class="node trial/g)]).toHaveLength(5);
    expect([...res.text.matchAll(/<path class="edge"/g)]).toHaveLength(6);
    expect(res.text).toContain('<a href="/browse/travel/trv-m3" data-node="trv-m3">');
    // `ethics` is the same vertical as ai-compliance.
    expect(rects((await svc.request("/browse/ethics")).text).sort()).toEqual(["aic-second", "aic-start"]);
  });

  it("shows anonymous visitors the index layer only, and the full node to a key that unlocks it", async () => {
    const locked = await svc.request("/browse/ai-compliance/aic-start");
    expect(locked.status).toBe(200);
    expect(locked.text).toContain("Fixture node aic-start");
    expect(locked.text).not.toContain("Logic text of aic-start");
    expect([...locked.text.matchAll(/class="layer locked"/g)]).toHaveLength(4);
    expect(locked.text).toContain("Unlock the content layers");

    const full = await svc.request("/browse/ai-compliance/aic-start", { headers: { "x-service-key": aicTrial } });
    expect(full.text).toContain("Logic text of aic-start");
    expect(full.text).toContain("Action text of aic-start");
    // The rule as a readable gate tree with its citation.
    expect(full.text).toMatch(
      /class="gate all"><span class="op">ALL of<\/span>[\s\S]*<code>condition_a<\/code>[\s\S]*class="gate not"><span class="op">NOT<\/span>/,
    );
    expect(full.text).toContain("Fixture Regulation, Art. 1(1)");
    expect(full.text).toContain('href="https://example.org/fixture"');
    expect(full.text).toMatch(/Version<\/dt><dd><code>[0-9a-f]+<\/code>/);
    expect(full.headers.get("vary")).toMatch(/X-Service-Key/);
  });

  it("follows the access matrix: open verticals for all, trial modules only, paid verticals need a key", async () => {
    expect((await svc.request("/browse/a2a-handoff/a2a-one")).text).toContain("Logic text of a2a-one");
    // Beyond its trial modules a trial key sees the free locked page, as anonymous visitors do.
    const outside = await svc.request("/browse/travel/trv-m7", { headers: { "x-service-key": travelTrial } });
    expect(outside.status).toBe(200);
    expect(outside.text).not.toContain("Skill text of trv-m7");
    expect((await svc.request("/browse/travel/trv-m2", { headers: { "x-service-key": travelTrial } })).text).toContain(
      "Skill text of trv-m2",
    );
    const paid = await svc.request("/browse/legal");
    expect(paid.status).toBe(402);
    // A bad key reads the free page with a warning; the page is the locked one.
    const bad = await svc.request("/browse/travel/trv-m1", { headers: { "x-service-key": "svc_live_0000000000000000000000" } });
    expect([bad.status, bad.headers.get("credential-problem")]).toEqual([200, "key_invalid"]);
    expect(bad.text).toContain('class="layer locked"');
    expect((await svc.request("/browse/travel/nope")).status).toBe(404);
    expect((await svc.request("/browse/no-such-vertical")).status).toBe(404);
  });

  it("meters a page read with a key like a retrieval", async () => {
    const before = (await svc.request("/api/keys", { headers: { "x-service-key": travelTrial } })).body.usage.total_trial;
    await svc.request("/browse/travel/trv-m1", { headers: { "x-service-key": travelTrial } });
    const after = (await svc.request("/api/keys", { headers: { "x-service-key": travelTrial } })).body.usage.total_trial;
    expect(after - before).toBe(1);
  });
});

describe("llms.txt", () => {
  it("gives the free index of every live vertical in markdown, never a gated layer", async () => {
    const short = await svc.request("/llms.txt");
    expect(short.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(short.text).toMatch(/^# Vertical Knowledge Retrieval Service\n\n> /);
    for (const slug of ["ai-compliance", "travel", "a2a-handoff", "real-estate", "ecommerce"])
      expect(short.text).toContain(`/api/demo?vertical=${slug}&lean=true`);
    expect(short.text).toContain("[Fixture node trv-m3](/api/demo?vertical=travel&node=trv-m3&lean=true)");
    const full = await svc.request("/llms-full.txt");
    expect(full.text).toContain("- id: `trv-m5`");
    expect(full.text).toContain("trial module");
    // /mcp advertised; the full text of the fully open verticals, nothing gated.
    expect(short.text).toMatch(/^## MCP\n\n- \[MCP endpoint\]\(\/mcp\): /m);
    for (const layer of ["Logic", "Directive", "Skill", "Action"]) expect(full.text).toContain(`#### ${layer}\n\n${layer} text of a2a-one`);
    expect(full.text).not.toMatch(/(Logic|Directive|Skill|Action) text of (aic|trv|re|legal)-/);
    // The pages served are those generated from the build in service.
    expect(svc.logs.some((l) => l.includes("browse pages are not of the build"))).toBe(false);
  });
});
