/**
 * Issue 10: the browse site in real headless Chromium (Debian's `chromium`, installed by
 * scripts/ensure-services.sh, driven by playwright-core; no browser download). Opens /browse, a
 * vertical's graph picture and a node page over the real content, checks one shape per node,
 * clicks from a node to a next node, and saves screenshots under test/artifacts/.
 */
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../helpers/test-service.ts";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = resolve("test/artifacts");
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let svc: TestService;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-services.sh (npm test does) to install Debian's chromium`);
  mkdirSync(ARTIFACTS, { recursive: true });
  svc = await startTestService(resolve("dist"));
  // A persistent context on a fresh, empty profile folder: the --user-data-dir of the launch.
  context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "vkr-chromium-")), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  page = context.pages()[0] ?? (await context.newPage());
});
afterAll(async () => {
  await context?.close();
  await svc?.close();
});

describe("browse site in Chromium", () => {
  it("opens /browse, a vertical's graph and a node page, and clicks on to a next node", async () => {
    await page.goto(`${svc.url}/browse`);
    await expect(page.locator("h1").textContent()).resolves.toBe("Verticals");
    expect(await page.locator('a[href="/docs"]').count()).toBeGreaterThan(0);
    expect(await page.locator("tr[data-vertical]").count()).toBe(svc.service.deps.build.current.catalog.verticals.length);
    await page.screenshot({ path: join(ARTIFACTS, "browse-verticals.png"), fullPage: true });

    await page.click('a[href="/browse/ai-compliance"]');
    await page.waitForURL(/\/browse\/ai-compliance$/);
    const index = (await svc.request("/api/demo?vertical=ai-compliance&lean=true")).body as { root: string; nodes: Array<{ id: string; trial: boolean }> };
    const shapes = page.locator("svg.graph rect.node");
    expect(await shapes.count()).toBe(index.nodes.length);
    expect((await shapes.evaluateAll((els) => els.map((e) => e.getAttribute("data-node")))).sort()).toEqual(index.nodes.map((n) => n.id).sort());
    expect(await page.locator("svg.graph rect.node.trial").count()).toBe(index.nodes.filter((n) => n.trial).length);
    // Laid out: every shape is drawn with a real size, inside the picture.
    const boxes = await shapes.evaluateAll((els) => els.map((e) => (e as SVGGraphicsElement).getBBox()).map((b) => ({ w: b.width, h: b.height })));
    expect(boxes.every((b) => b.w > 50 && b.h > 20)).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, "browse-graph-ai-compliance.png"), fullPage: true });
    await page.locator("figure.graph-box").screenshot({ path: join(ARTIFACTS, "browse-graph-ai-compliance-picture.png") });

    // Click the root's shape in the picture.
    await page.locator(`svg.graph a[data-node="${index.root}"]`).click();
    await page.waitForURL(new RegExp(`/browse/ai-compliance/${index.root}$`));
    const node = (await svc.request(`/api/demo?vertical=ai-compliance&node=${index.root}`)).body as { node: { title: string }; next_nodes: Array<{ id: string; title: string }> };
    expect(await page.locator("h1").textContent()).toBe(node.node.title);
    expect(await page.locator("section.layer.locked").count()).toBe(4);
    expect(await page.locator("section.sources li").count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, "browse-node-locked.png"), fullPage: true });

    const next = node.next_nodes[0]!;
    await page.click(`a.next[href="/browse/ai-compliance/${next.id}"]`);
    await page.waitForURL(new RegExp(`/browse/ai-compliance/${next.id}$`));
    expect(await page.locator("h1").textContent()).toBe(next.title);
    await page.screenshot({ path: join(ARTIFACTS, "browse-node-next.png"), fullPage: true });
  });

  it("renders the full node, rules as gate trees, for a key sent by the browser", async () => {
    const trial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "browser-suite" } })).body.key as string;
    const keyed = await context.newPage();
    await keyed.setExtraHTTPHeaders({ "x-service-key": trial });
    const withRules = (await svc.request("/api/demo?vertical=ai-compliance&lean=true")).body.nodes[0].id as string;
    await keyed.goto(`${svc.url}/browse/ai-compliance/${withRules}`);
    expect(await keyed.locator("section.layer.locked").count()).toBe(0);
    expect(await keyed.locator("section.layer").count()).toBe(4);
    expect(await keyed.locator("ol.rules > li.rule").count()).toBeGreaterThan(0);
    expect(await keyed.locator("ul.gate-tree .op").first().textContent()).toMatch(/ALL of|ANY of|NOT/);
    await keyed.screenshot({ path: join(ARTIFACTS, "browse-node-full.png"), fullPage: true });
    await keyed.close();
  });
});
