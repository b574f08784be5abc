/**
 * The free pages (`/browse`, `/browse/*`, `/llms.txt`, `/llms-full.txt`) are
 * limited per client like the free index of GET /api/demo. One concurrent burst of 240 gets
 * exactly the limit served; HTML pages answer a friendly 429 page, the text files a problem; a
 * made-up key is no way around it; another client and the next minute are served.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { socketBurst, tally } from "./socket-burst.ts";

const LIMIT = 20;
const BURST = 240;
const PAGES = ["/browse", "/browse/travel", "/browse/travel/trv-m1", "/llms.txt", "/llms-full.txt"];

let svc: TestService;
beforeAll(
  async () =>
    void (svc = await startTestService(buildContentTo(writeFixtureContent()), { ANON_RATE_PER_MINUTE: String(LIMIT), TRUST_PROXY: "1" })),
);
afterAll(() => svc?.close());

const from = (client: string, extra: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": client, ...extra } });

describe("per-client limit on the free pages", () => {
  it("every page is served to a fresh client", async () => {
    for (const page of PAGES) expect((await svc.request(page, from(`10.0.0.${PAGES.indexOf(page) + 1}`))).status, page).toBe(200);
  });

  it(`one burst of ${BURST} over all the pages from one client gets exactly ${LIMIT} served`, async () => {
    const statuses = await socketBurst(svc.url, BURST, (i) => ({
      method: "GET",
      path: PAGES[i % PAGES.length]!,
      headers: { "x-forwarded-for": "10.1.0.1" },
    }));
    expect(tally(statuses)).toEqual({ 200: LIMIT, 429: BURST - LIMIT });
  });

  it("people get a friendly HTML page, the text files a problem, both with Retry-After; a made-up key changes nothing", async () => {
    const html = await svc.request("/browse/travel", from("10.1.0.1", { "x-service-key": "svc_live_AAAAAAAAAAAAAAAAAAAAAA" }));
    expect(html.status).toBe(429);
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    expect(html.text).toContain("Too many pages at once");
    expect(Number(html.headers.get("retry-after"))).toBeGreaterThan(0);
    const text = await svc.request("/llms-full.txt", from("10.1.0.1"));
    expect(text.status).toBe(429);
    expect(text.headers.get("content-type")).toBe("application/problem+json");
    expect(text.body.code).toBe("rate_limited");
    expect(Number(text.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("another client is served meanwhile, and the limited one again in the next minute", async () => {
    expect((await svc.request("/llms.txt", from("10.1.0.2"))).status).toBe(200);
    svc.clock.advance(60_000);
    expect((await svc.request("/llms.txt", from("10.1.0.1"))).status).toBe(200);
  });
});
