/**
 * Members read what they paid for in a browser. A key pasted once on
 * /browse/key is kept in an HttpOnly, SameSite=Strict cookie (never in a URL), set only by a
 * same-origin form post; pages, `.md` twins and search then show what that key unlocks, metered
 * like GET /api/demo; browsers get HTML error pages. Real HTTP on a real port.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { peopleFixtureDist } from "./_fixture.ts";

const BROWSER = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
const FORM = { "content-type": "application/x-www-form-urlencoded" };

let svc: TestService;
let aicTrial: string;

beforeAll(async () => {
  svc = await startTestService(peopleFixtureDist());
  aicTrial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "browse-members" } })).body.key;
});
afterAll(() => svc?.close());

const postKey = (key: string, headers: Record<string, string> = { origin: svc.url }) =>
  svc.request("/browse/key", {
    method: "POST",
    redirect: "manual",
    headers: { ...FORM, ...BROWSER, ...headers },
    body: new URLSearchParams({ key }).toString(),
  });
const cookieOf = (res: { headers: Headers }) => res.headers.get("set-cookie")!.split(";")[0]!;
const usage = async () => (await svc.request("/api/keys", { headers: { "x-service-key": aicTrial } })).body.usage.total_trial as number;

describe("the key form and its cookie", () => {
  it("keeps a pasted key in an HttpOnly, SameSite=Strict cookie and redirects to the key page (which confirms it) without it in the URL", async () => {
    expect((await svc.request("/browse/key")).text).toMatch(
      /<form class="key" method="post" action="\/browse\/key">[\s\S]*type="password"/,
    );
    const res = await postKey(aicTrial);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/browse/key?saved=1");
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^vkr_key=svc_trial_\w+; Path=\/browse; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    expect(cookie).not.toContain("Secure"); // plain http here; see the https case below
  });

  it("shows the unlocked layers and gate trees to the cookie, metered as one retrieval per page", async () => {
    const cookie = cookieOf(await postKey(aicTrial));
    const before = await usage();
    const page = await svc.request("/browse/ai-compliance/aic-start", { headers: { ...BROWSER, cookie } });
    expect(page.text).toContain("Logic text of aic-start");
    expect(page.text).toMatch(/class="gate all"><span class="op">ALL of<\/span>/);
    expect(page.text).not.toContain('class="layer locked"');
    expect(page.headers.get("vary")).toMatch(/Cookie/);
    expect(await usage()).toBe(before + 1);
    // The API itself never reads the cookie (no cookie-borne CSRF there).
    const api = await svc.request("/api/demo?vertical=ai-compliance&node=aic-start&lean=true", { headers: { cookie } });
    expect(api.body.node.layers.logic).toBeUndefined();
  });

  it("refuses form posts from another site or without Origin, and bad keys, as HTML pages", async () => {
    const evil = await postKey(aicTrial, { origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    expect(evil.headers.get("content-type")).toMatch(/^text\/html/);
    expect(evil.text).toContain("<code>cross_site_form</code>");
    expect(evil.headers.get("set-cookie")).toBeNull();
    expect((await postKey(aicTrial, {})).status).toBe(403);
    expect((await postKey(aicTrial, { origin: "null", "sec-fetch-site": "cross-site" })).status).toBe(403);
    // Under Referrer-Policy: no-referrer browsers send `Origin: null` for their own forms; Sec-Fetch-Site vouches then.
    expect((await postKey(aicTrial, { origin: "null", "sec-fetch-site": "same-origin" })).status).toBe(303);
    const bad = await postKey("svc_trial_notakey000000000000000");
    expect(bad.status).toBe(401);
    expect(bad.text).toContain("<code>key_invalid</code>");
    expect(bad.headers.get("set-cookie")).toBeNull();
  });

  it("logs out by clearing the cookie, and clears a cookie whose key stopped working", async () => {
    const out = await svc.request("/browse/logout", { method: "POST", redirect: "manual", headers: { origin: svc.url } });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/^vkr_key=; Path=\/browse; HttpOnly; SameSite=Strict; Max-Age=0/);
    // The free page, a notice, and the cookie cleared (no longer a 401 on a page that has a free view).
    const stale = await svc.request("/browse/ai-compliance/aic-start", {
      headers: { ...BROWSER, cookie: "vkr_key=svc_trial_revokedorgone0000000000" },
    });
    expect([stale.status, stale.headers.get("credential-problem")]).toEqual([200, "key_invalid"]);
    expect(stale.text).toContain('<p class="notice" role="status">');
    expect(stale.headers.get("set-cookie")).toMatch(/Max-Age=0/);
  });
});

describe("markdown twins, search and error pages", () => {
  it("serves /browse/<vertical>/<node>.md with the same layers the caller may see", async () => {
    const locked = await svc.request("/browse/ai-compliance/aic-start.md");
    expect(locked.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(locked.text).toMatch(/^# Fixture node aic-start\n/);
    expect(locked.text).toContain("## Logic (locked)");
    expect(locked.text).not.toContain("Logic text of");
    const full = await svc.request("/browse/ai-compliance/aic-start.md", { headers: { "x-service-key": aicTrial } });
    expect(full.text).toContain("## Logic\n\nLogic text of aic-start.");
    expect(full.text).toContain("- ALL of\n  - `condition_a`: Is condition A true?\n  - NOT\n    - `condition_b`");
    expect((await svc.request("/browse/a2a-handoff/a2a-one.md")).text).toContain("Action text of a2a-one");
    expect((await svc.request("/browse/ai-compliance/aic-start")).text).toContain('href="/browse/ai-compliance/aic-start.md"');
  });

  it("has a search box on every page and a results page that runs the API's search", async () => {
    expect((await svc.request("/browse")).text).toContain('<form class="find" method="get" action="/browse/search"');
    const res = await svc.request("/browse/search?q=fixture+node&vertical=travel", { headers: BROWSER });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<a href="/browse/travel/trv-m1">Fixture node trv-m1</a>');
    expect(res.text).toContain('value="fixture node"');
    expect(res.text).toMatch(/<option value="travel" selected>/);
    const xss = await svc.request(`/browse/search?q=${encodeURIComponent('"><script>alert(1)</script>')}`, { headers: BROWSER });
    expect(xss.text).not.toContain("<script>");
  });

  it("says on the page when no result answers the search well", async () => {
    const poor = await svc.request(`/browse/search?q=${encodeURIComponent("fixture zeppelin airship blimp")}`, { headers: BROWSER });
    expect(poor.text).toContain("No page answers this well");
    expect(poor.text).toMatch(/<ol class="results">/);
    const good = await svc.request("/browse/search?q=fixture+node", { headers: BROWSER });
    expect(good.text).not.toContain("No page answers this well");
  });

  it("answers browsers with HTML error pages and everyone else with problem+json", async () => {
    const page = await svc.request("/browse/travel/nope", { headers: BROWSER });
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toContain("No such node in this vertical");
    expect(page.text).toContain("<code>node_not_found</code>");
    expect((await svc.request("/browse/legal", { headers: BROWSER })).text).toContain("<code>payment_required</code>");
    const agent = await svc.request("/browse/travel/nope");
    expect(agent.headers.get("content-type")).toBe("application/problem+json");
    expect(agent.body.code).toBe("node_not_found");
  });
});

describe("over https", () => {
  it("marks the cookie Secure and accepts the public origin", async () => {
    const secure = await startTestService(peopleFixtureDist(), { PUBLIC_BASE_URL: "https://vkr.example" });
    try {
      const res = await secure.request("/browse/key", {
        method: "POST",
        redirect: "manual",
        headers: { ...FORM, origin: "https://vkr.example" },
        body: `key=${aicTrial}`,
      });
      // The trial key belongs to the other service's store: a 401 still proves the origin passed.
      expect(res.status).toBe(401);
      const trial = (await secure.request("/api/trial", { method: "POST", json: { agent_id: "browse-https" } })).body.key as string;
      const ok = await secure.request("/browse/key", {
        method: "POST",
        redirect: "manual",
        headers: { ...FORM, origin: "https://vkr.example" },
        body: `key=${trial}`,
      });
      expect(ok.headers.get("set-cookie")).toMatch(/; Secure$/);
    } finally {
      await secure.close();
    }
  });
});
