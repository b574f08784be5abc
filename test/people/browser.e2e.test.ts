/**
 * The browse site in real headless Chromium (Debian's `chromium`, installed by
 * scripts/ensure-services.sh, driven by playwright-core; no browser download). Opens /browse, a
 * vertical's graph picture and a node page over the real content, checks one shape per node,
 * clicks from a node to a next node, and saves screenshots under test/artifacts/: the
 * graph at 1280 and 390 px (readable labels, no edge through a box, its own scroller), a member's
 * visit with the key form at both widths (home, graph, node page: no horizontal overflow, fenced
 * code inside <pre>), and /docs rendered by Swagger UI from local assets.
 */
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../helpers/test-service.ts";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = resolve("test/artifacts");
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let svc: TestService;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run scripts/ensure-services.sh (npm test does) to install Debian's chromium`);
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
    const index = (await svc.request("/api/demo?vertical=ai-compliance&lean=true")).body as {
      root: string;
      nodes: Array<{ id: string; trial: boolean }>;
    };
    const shapes = page.locator("svg.graph rect.node");
    expect(await shapes.count()).toBe(index.nodes.length);
    expect((await shapes.evaluateAll((els) => els.map((e) => e.getAttribute("data-node")))).sort()).toEqual(
      index.nodes.map((n) => n.id).sort(),
    );
    expect(await page.locator("svg.graph rect.node.trial").count()).toBe(index.nodes.filter((n) => n.trial).length);
    // Laid out: every shape is drawn with a real size, inside the picture.
    const boxes = await shapes.evaluateAll((els) =>
      els.map((e) => (e as SVGGraphicsElement).getBBox()).map((b) => ({ w: b.width, h: b.height })),
    );
    expect(boxes.every((b) => b.w > 50 && b.h > 20)).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, "browse-graph-ai-compliance.png"), fullPage: true });
    await page.locator("figure.graph-box").screenshot({ path: join(ARTIFACTS, "browse-graph-ai-compliance-picture.png") });

    // Click the root's shape in the picture.
    await page.locator(`svg.graph a[data-node="${index.root}"]`).click();
    await page.waitForURL(new RegExp(`/browse/ai-compliance/${index.root}$`));
    const node = (await svc.request(`/api/demo?vertical=ai-compliance&node=${index.root}`)).body as {
      node: { title: string };
      next_nodes: Array<{ id: string; title: string }>;
    };
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

  // A graph people can read, on a desktop and on a phone.
  for (const [device, width] of [
    ["desktop", 1280],
    ["phone", 390],
  ] as const) {
    it(`draws every vertical's graph at a readable size, no edge through a box, scrolling in its own box (${device})`, async () => {
      const tab = await context.newPage();
      await tab.setViewportSize({ width, height: 900 });
      for (const slug of ["ai-compliance", "travel", "real-estate", "ecommerce", "a2a-handoff", "traversal"]) {
        await tab.goto(`${svc.url}/browse/${slug}`);
        const report = await tab.evaluate(() => {
          const svg = document.querySelector("svg.graph") as SVGSVGElement;
          const rects = Array.from(svg.querySelectorAll("rect.node")).map((r) => (r as SVGGraphicsElement).getBBox());
          // Sample every edge every 3 user units; a point strictly inside a box (1 unit inset) is a crossing.
          const crossings: string[] = [];
          for (const path of Array.from(svg.querySelectorAll<SVGPathElement>("path.edge"))) {
            const length = path.getTotalLength();
            for (let at = 0; at <= length; at += 3) {
              const p = path.getPointAtLength(at);
              if (rects.some((b) => p.x > b.x + 1 && p.x < b.x + b.width - 1 && p.y > b.y + 1 && p.y < b.y + b.height - 1)) {
                crossings.push(`${path.dataset.from}->${path.dataset.to}`);
                break;
              }
            }
          }
          const labels = Array.from(svg.querySelectorAll("text tspan:not(.tag)")).map((t) => t.getBoundingClientRect().height);
          const figure = svg.closest("figure")!;
          return {
            crossings,
            smallestLabel: Math.min(...labels),
            scale: svg.getBoundingClientRect().width / svg.viewBox.baseVal.width,
            pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
            figureFits: figure.getBoundingClientRect().right <= window.innerWidth + 0.5,
            figureScrolls: figure.scrollWidth > figure.clientWidth,
          };
        });
        expect(report.crossings, slug).toEqual([]);
        expect(report.scale, slug).toBe(1);
        expect(report.smallestLabel, slug).toBeGreaterThanOrEqual(13);
        expect(report.pageOverflow, slug).toBeLessThanOrEqual(0);
        expect(report.figureFits, slug).toBe(true);
        if (device === "phone") expect(report.figureScrolls, slug).toBe(true);
      }
      await tab.goto(`${svc.url}/browse/travel`);
      await tab.screenshot({ path: join(ARTIFACTS, `graph-travel-${width}.png`), fullPage: true });
      await tab.close();
    }, 60_000);
  }

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

  // Item 6 and "must hold": a member's whole visit in a real browser, at desktop and phone widths.
  for (const [device, width] of [
    ["desktop", 1280],
    ["phone", 390],
  ] as const) {
    it(`a member pastes a key once and reads the full node; home, graph and node fit the screen (${device})`, async () => {
      const trial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: `browser-member-${device}` } })).body
        .key as string;
      const member = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "vkr-chromium-")), {
        executablePath: CHROMIUM,
        headless: true,
        args: FLAGS,
        viewport: { width, height: 900 },
      });
      try {
        const tab = member.pages()[0] ?? (await member.newPage());
        const overflow = () => tab.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

        await tab.goto(`${svc.url}/`);
        expect(await overflow()).toBeLessThanOrEqual(0);
        await tab.screenshot({ path: join(ARTIFACTS, `home-${width}.png`), fullPage: true });

        await tab.goto(`${svc.url}/browse/key`);
        await tab.fill("input#key", trial);
        await Promise.all([tab.waitForURL(/\/browse\/key\?saved=1$/), tab.click("form.key button")]);
        expect(tab.url()).not.toContain(trial);
        // The form confirms the save and names the active key by its public id.
        expect(await tab.locator("p.saved").textContent()).toContain("Key saved");
        expect(await tab.locator("p.active code").textContent()).toMatch(/^[0-9a-f]{12}$/);
        expect(await overflow()).toBeLessThanOrEqual(0);
        await tab.screenshot({ path: join(ARTIFACTS, `key-saved-${width}.png`), fullPage: true });
        const cookies = await member.cookies(svc.url + "/browse");
        expect(cookies.find((c) => c.name === "vkr_key")).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/browse" });
        expect(await tab.evaluate(() => document.cookie)).toBe("");

        await tab.goto(`${svc.url}/browse/ai-compliance`);
        expect(await overflow()).toBeLessThanOrEqual(0);
        await tab.screenshot({ path: join(ARTIFACTS, `graph-ai-compliance-${width}.png`), fullPage: true });

        await tab.goto(`${svc.url}/browse/ai-compliance/aic-triage`);
        expect(await tab.locator("section.layer.locked").count()).toBe(0);
        expect(await tab.locator("ol.rules > li.rule").count()).toBeGreaterThan(0);
        expect(await overflow()).toBeLessThanOrEqual(0);
        // Fenced code keeps its lines inside <pre>, which scrolls on its own if a line is long.
        const code = await tab.evaluate(() => {
          const blocks = Array.from(document.querySelectorAll("pre > code"));
          const multiLine = Array.from(document.querySelectorAll("code")).filter((c) => (c.textContent ?? "").trim().includes("\n"));
          const pre = blocks[0]?.parentElement;
          return {
            blocks: blocks.length,
            outsidePre: multiLine.filter((c) => !c.closest("pre")).length,
            lines: pre ? Math.round(pre.getBoundingClientRect().height / parseFloat(getComputedStyle(pre).lineHeight)) : 0,
            preFits: pre ? pre.getBoundingClientRect().right <= window.innerWidth : false,
          };
        });
        expect(code.blocks).toBeGreaterThan(0);
        expect(code.outsidePre).toBe(0);
        expect(code.lines).toBeGreaterThanOrEqual(5);
        expect(code.preFits).toBe(true);
        await tab.screenshot({ path: join(ARTIFACTS, `node-aic-triage-${width}.png`), fullPage: true });

        // The search box of the page header, then log out: the same page is locked again.
        await tab.fill("form.find input[name=q]", "deep fake labelling");
        await Promise.all([tab.waitForURL(/\/browse\/search\?q=/), tab.click("form.find button")]);
        expect(await tab.locator("ol.results li a").count()).toBeGreaterThan(0);
        expect(await overflow()).toBeLessThanOrEqual(0);
        await tab.goto(`${svc.url}/browse/key`);
        await Promise.all([tab.waitForURL(/\/browse\/key$/), tab.click("form.logout button")]);
        await tab.goto(`${svc.url}/browse/ai-compliance/aic-triage`);
        expect(await tab.locator("section.layer.locked").count()).toBe(4);

        // Errors are pages for people.
        const missing = await tab.goto(`${svc.url}/browse/ai-compliance/no-such-node`);
        expect(missing?.status()).toBe(404);
        expect(await tab.locator("h1").textContent()).toBe("No such node in this vertical");
      } finally {
        await member.close();
      }
    }, 90_000);
  }

  it("renders /docs with Swagger UI from local assets: sections per tag, examples, no CSP violation", async () => {
    const tab = await context.newPage();
    const violations: string[] = [];
    tab.on("console", (m) => {
      if (m.type() === "error") violations.push(m.text());
    });
    const external: string[] = [];
    tab.on("request", (r) => {
      if (!r.url().startsWith(svc.url) && !r.url().startsWith("data:")) external.push(r.url());
    });
    await tab.goto(`${svc.url}/docs`);
    await tab.waitForSelector(".opblock-tag-section", { timeout: 20_000 });
    // The page's own h1 comes first and is shown, before and after Swagger UI draws its title.
    expect(await tab.locator("h1").first().isVisible()).toBe(true);
    expect(await tab.locator("h1").first().textContent()).toMatch(/API reference/);
    const tags = await tab.locator(".opblock-tag-section h3").allTextContents();
    expect(tags.join(" ")).toMatch(/Knowledge[\s\S]*MCP[\s\S]*Keys/);
    // Open GET /api/demo: its parameters and the example of its 200 answer are shown.
    await tab.locator("#operations-Knowledge-getDemo .opblock-summary").click();
    await tab.waitForSelector("#operations-Knowledge-getDemo .parameters");
    expect(await tab.locator("#operations-Knowledge-getDemo .parameters").textContent()).toContain("vertical");
    expect(await tab.locator("#operations-Knowledge-getDemo .responses-wrapper").textContent()).toContain("200");
    expect(await tab.locator("#errors tr#problem-quota_exceeded").count()).toBe(1);
    expect(violations).toEqual([]);
    expect(external).toEqual([]);
    await tab.screenshot({ path: join(ARTIFACTS, "docs-1280.png") });
    await tab.close();
  }, 60_000);

  // The API reference and the guides fit a phone: nothing scrolls sideways but a table or a code block in its own box.
  for (const [device, width] of [
    ["desktop", 1280],
    ["phone", 390],
  ] as const) {
    it(`/docs and the guides fit the screen, and every guide link opens (${device})`, async () => {
      const tab = await context.newPage();
      await tab.setViewportSize({ width, height: 900 });
      const overflow = () => tab.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      try {
        await tab.goto(`${svc.url}/docs`);
        await tab.waitForSelector(".opblock-tag-section", { timeout: 20_000 });
        await tab.locator("#operations-Knowledge-getDemo .opblock-summary").click();
        await tab.waitForSelector("#operations-Knowledge-getDemo .parameters");
        await tab.screenshot({ path: join(ARTIFACTS, `docs-${width}.png`), fullPage: true });
        expect(await overflow(), "/docs scrolls sideways").toBeLessThanOrEqual(0);

        await tab.goto(`${svc.url}/docs/guides`);
        const links = [
          ...new Set(await tab.locator("article.doc a[href^='/docs/']").evaluateAll((els) => els.map((e) => e.getAttribute("href")!))),
        ];
        expect(links.length).toBeGreaterThanOrEqual(8);
        for (const href of links) {
          const res = await tab.goto(`${svc.url}${href}`);
          expect(res?.status(), href).toBe(200);
          expect(await overflow(), `${href} scrolls sideways`).toBeLessThanOrEqual(0);
        }
        await tab.goto(`${svc.url}/docs/endpoints#abuse-limits`);
        expect(await tab.locator("h2#abuse-limits").count()).toBe(1);
        await tab.screenshot({ path: join(ARTIFACTS, `docs-endpoints-${width}.png`), fullPage: true });
      } finally {
        await tab.close();
      }
    }, 120_000);
  }
});
