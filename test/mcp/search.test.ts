/**
 * GET /api/search and the `search` tool over a fixture with distinctive words placed in chosen
 * layers: ranking (the same fields for every caller), the normalised score and `match`,
 * vertical scoping, snippets only from unlocked layers, limit bounds, the quota rule (free on the
 * index layer, one retrieval when a key's gated layers may be quoted), and the build's per-field index.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import type { TestService } from "../helpers/test-service.ts";
import { hourlyUsage, issueKey, rpc, startMcpService, trialKey } from "./_setup.ts";

let svc: TestService;
let content: string;
let travelMember: string;
let allMember: string;
let travelTrial: string;

/** Rewrites parts of a generated fixture node: title, summary, or one layer's text. */
function editNode(
  vertical: string,
  id: string,
  edits: { title?: string; summary?: string; logic?: string; directive?: string; action?: string },
): void {
  const file = join(content, vertical, `${id}.md`);
  let text = readFileSync(file, "utf8");
  if (edits.title) text = text.replace(/^title: .*$/m, `title: ${edits.title}`);
  if (edits.summary) text = text.replace(/^summary: .*$/m, `summary: ${edits.summary}`);
  if (edits.logic) text = text.replace(`Logic text of ${id}.`, edits.logic);
  if (edits.directive) text = text.replace(`Directive text of ${id}.`, edits.directive);
  if (edits.action) text = text.replace(`Action text of ${id}.`, edits.action);
  writeFileSync(file, text);
}

const search = (query: string, key?: string) => svc.request(`/api/search?${query}`, { headers: key ? { "x-service-key": key } : {} });
const ids = (body: { results: Array<{ id: string }> }) => body.results.map((r) => r.id);

beforeAll(async () => {
  content = writeFixtureContent();
  editNode("travel", "trv-m2", {
    title: "Baggage delay compensation",
    summary: "Claims for delayed baggage under the Montreal Convention.",
    logic: "The carrier pays for the kangaroo clause. Baggage claims within 21 days of delivery.",
  });
  editNode("travel", "trv-m3", { summary: "Check-in rules; a passing mention of baggage." });
  editNode("travel", "trv-m6", { logic: "Kangaroo provisions apply to long-haul flights only." });
  editNode("ai-compliance", "aic-start", { summary: "Triage; baggage scanners in airports may be high-risk AI." });
  editNode("a2a-handoff", "a2a-one", { action: "Hand the kangaroo task to the next agent with its context." });
  editNode("legal", "legal-one", { summary: "Lost baggage litigation in small-claims courts." });
  editNode("travel", "trv-m4", {
    title: "Flight delay rights",
    summary: "Fixture node trv-m4, what a passenger is owed when the flight arrives late.",
  });
  editNode("travel", "trv-m5", { summary: "Delayed flights on connecting journeys." });
  editNode("ai-compliance", "aic-second", {
    logic: "Report the incident without delay. Inform the authority without delay. Tell the provider without delay.",
    directive: "Act without delay; a delay is a breach.",
  });
  editNode("real-estate", "re-one", { summary: "Deep fakes in property listings must be labelled." });
  editNode("real-estate", "re-two", { summary: "A deep-fake video tour is no disclosure." });
  editNode("a2a-handoff", "a2a-one", { title: "Deepfake checks on handed-over media" });
  svc = await startMcpService(content);
  travelMember = await issueKey(svc, "travel");
  allMember = await issueKey(svc, "all");
  travelTrial = await trialKey(svc, "search-agent", "travel");
});
afterAll(() => svc?.close());

describe("ranking", () => {
  it("puts a title match above a passing mention, best first, with the spec's fields", async () => {
    const res = await search("q=baggage&vertical=travel");
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(["trv-m2", "trv-m3"]);
    const [first, second] = res.body.results;
    expect(first).toEqual({
      id: "trv-m2",
      vertical: "travel",
      title: "Baggage delay compensation",
      summary: expect.any(String),
      score: expect.any(Number),
      snippet: expect.any(String),
    });
    expect(first.score).toBeGreaterThan(second.score);
    // Normalised: a one-word query its title holds is a good match; a passing mention in a summary is not.
    expect(res.body.match).toBe("good");
    expect(first.score).toBeLessThanOrEqual(1);
    expect(second.score).toBeLessThan(first.score);
  });

  it("folds case, accents and plurals, and ranks on several words", async () => {
    const res = await search(`q=${encodeURIComponent("BAGGÄGE Delays")}&vertical=travel`);
    expect(ids(res.body)[0]).toBe("trv-m2");
  });

  it("stems words, so inflections and plurals meet", async () => {
    expect(ids((await search("q=delaying&vertical=travel")).body).sort()).toEqual(["trv-m2", "trv-m4", "trv-m5"]);
    expect(ids((await search("q=compensated&vertical=travel")).body)).toEqual(["trv-m2"]);
    expect(
      ids((await search(`q=${encodeURIComponent("flights delayed")}&vertical=travel`)).body)
        .slice(0, 2)
        .sort(),
    ).toEqual(["trv-m4", "trv-m5"]);
  });

  it("matches a compound written as one word, two words or hyphenated", async () => {
    for (const q of ["deepfake", "deepfakes", "deep fake", "deep-fakes"]) {
      expect(ids((await search(`q=${encodeURIComponent(q)}`)).body).sort(), q).toEqual(["a2a-one", "re-one", "re-two"]);
    }
  });

  it("keeps title and summary matches first when a key unlocks body layers that repeat a word", async () => {
    const key = await issueKey(svc, "ai-compliance");
    for (const caller of [key, allMember, undefined]) {
      const res = await search(`q=${encodeURIComponent("flight delay")}`, caller);
      expect(ids(res.body).slice(0, 3), String(caller)).toEqual(["trv-m4", "trv-m5", "trv-m2"]);
    }
  });

  it("answers an unmatched query with no results and match none", async () => {
    expect((await search("q=zeppelin")).body).toEqual({ match: "none", results: [] });
  });

  it('says "poor" when the first result covers little of the query', async () => {
    // "kangaroo" is in one layer only, "zeppelin" and "airship" nowhere: results, but no good answer.
    const res = await search(`q=${encodeURIComponent("zeppelin airship kangaroo")}`);
    expect(res.body.results.length).toBeGreaterThan(0);
    expect(res.body.match).toBe("poor");
    expect(res.body.results[0].score).toBeLessThan(0.22);
    const tool = await rpc(svc, "tools/call", { name: "search", arguments: { q: "zeppelin airship kangaroo" } });
    expect(tool.result.structuredContent.match).toBe("poor");
  });
});

describe("scoping", () => {
  it("searches every vertical the caller can see, and only the named one when given (aliases too)", async () => {
    const all = await search("q=baggage");
    expect(new Set(all.body.results.map((r: { vertical: string }) => r.vertical))).toEqual(new Set(["travel", "ai-compliance"]));
    expect(ids((await search("q=baggage&vertical=ethics")).body)).toEqual(["aic-start"]);
  });

  it("never shows a vertical the caller may not see; a key that covers it does", async () => {
    expect(ids((await search("q=litigation")).body)).toEqual([]);
    expect((await search("q=litigation&vertical=legal")).status).toBe(402);
    expect((await search("q=litigation&vertical=legal", travelMember)).status).toBe(403);
    expect(ids((await search("q=litigation", allMember)).body)).toEqual(["legal-one"]);
  });

  it("rejects an unknown vertical", async () => {
    const res = await search("q=baggage&vertical=atlantis");
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("vertical_unknown");
  });
});

describe("snippets and layers", () => {
  it("ranks every caller on the same fields, and quotes only the layers the caller may read", async () => {
    const anonymous = await search("q=kangaroo");
    const member = await search("q=kangaroo", travelMember);
    expect(ids(anonymous.body).sort()).toEqual(["a2a-one", "trv-m2", "trv-m6"]);
    expect(ids(member.body)).toEqual(ids(anonymous.body));
    expect(anonymous.body.results.find((r: { id: string }) => r.id === "a2a-one").snippet).toBe(
      "Hand the kangaroo task to the next agent with its context.",
    );
    // A locked node is found by its layers but quoted from its summary only.
    const m6 = anonymous.body.results.find((r: { id: string }) => r.id === "trv-m6");
    expect(m6.snippet).not.toContain("Kangaroo");
    expect(JSON.stringify(anonymous.body)).not.toContain("kangaroo clause");
  });

  it("a locked node's snippet never quotes a locked layer", async () => {
    const res = await search("q=baggage%20claims&vertical=travel");
    const hit = res.body.results.find((r: { id: string }) => r.id === "trv-m2");
    expect(hit.snippet).toBe("Claims for delayed baggage under the Montreal Convention.");
    expect(JSON.stringify(res.body)).not.toContain("21 days");
  });

  it("a key searches and quotes the layers it unlocks", async () => {
    const res = await search("q=kangaroo", travelMember);
    expect(ids(res.body).sort()).toEqual(["a2a-one", "trv-m2", "trv-m6"]);
    const m2 = res.body.results.find((r: { id: string }) => r.id === "trv-m2");
    expect(m2.snippet).toBe("The carrier pays for the kangaroo clause.");
  });

  it("a trial key quotes only its trial modules", async () => {
    const res = await search("q=kangaroo&vertical=travel", travelTrial);
    expect(ids(res.body).sort()).toEqual(["trv-m2", "trv-m6"]);
    const snippets = Object.fromEntries(res.body.results.map((r: { id: string; snippet: string }) => [r.id, r.snippet]));
    expect(snippets["trv-m2"]).toBe("The carrier pays for the kangaroo clause.");
    expect(snippets["trv-m6"]).not.toContain("Kangaroo");
  });
});

describe("words named like JavaScript internals", () => {
  const words = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "prototype", "isPrototypeOf"];

  it("are ordinary words on GET /api/search, anonymous and with a key, in q and in vertical", async () => {
    for (const word of words) {
      for (const key of [undefined, allMember]) {
        const res = await search(`q=${encodeURIComponent(word)}`, key);
        expect(res.status, word).toBe(200);
        expect(res.body, word).toEqual({ match: "none", results: [] });
        expect((await search(`q=${encodeURIComponent(`baggage ${word}`)}&vertical=travel`, key)).body.results[0]?.id, word).toBe("trv-m2");
      }
      const vertical = await search(`q=baggage&vertical=${encodeURIComponent(word)}`);
      expect(vertical.status, word).toBe(400);
      expect(vertical.body.code, word).toBe("vertical_unknown");
    }
  });

  it("are ordinary words for the MCP search tool", async () => {
    for (const word of words) {
      const tool = await rpc(svc, "tools/call", { name: "search", arguments: { q: word } }, { "x-service-key": allMember });
      expect(tool.error, word).toBeUndefined();
      expect(tool.result.isError, word).toBeFalsy();
      expect(tool.result.structuredContent, word).toEqual({ match: "none", results: [] });
    }
  });
});

describe("bounds", () => {
  it("checks q and limit", async () => {
    for (const query of [
      "",
      "q=",
      "q=%20",
      "q=a",
      "q=the%20of",
      `q=${"x".repeat(201)}`,
      "q=baggage&limit=0",
      "q=baggage&limit=51",
      "q=baggage&limit=x",
      "q=a&q=b",
    ]) {
      const res = await search(query);
      expect(res.status, query).toBe(400);
    }
  });

  it("honours limit from 1 to 50", async () => {
    expect((await search("q=fixture&limit=1")).body.results).toHaveLength(1);
    expect((await search("q=fixture&limit=3")).body.results).toHaveLength(3);
    const all = await search("q=fixture&limit=50");
    expect(all.status).toBe(200);
    expect(all.body.results.length).toBeGreaterThan(10);
    expect((await search("q=fixture")).body.results).toHaveLength(10);
  });
});

describe("quota", () => {
  it("is free on the index layer and on fully open verticals, even with a key", async () => {
    const key = await issueKey(svc, "travel");
    const res = await search("q=kangaroo&vertical=a2a-handoff", key);
    expect(res.headers.get("ratelimit")).toBeNull();
    const index = await search("q=baggage&vertical=real-estate", key);
    expect(index.status).toBe(200);
    expect(await hourlyUsage(svc, key)).toBe(0);
  });

  it("counts one retrieval when a key's gated layers are searched, whatever the hits", async () => {
    const key = await issueKey(svc, "travel");
    const res = await search("q=kangaroo&vertical=travel", key);
    expect(res.headers.get("ratelimit")).toMatch(/r=/);
    expect(await hourlyUsage(svc, key)).toBe(1);
    await search("q=zeppelin", key);
    expect(await hourlyUsage(svc, key)).toBe(2);
  });
});

describe("the search tool over MCP", () => {
  it("returns what REST returns, as structuredContent and text", async () => {
    const rest = await search("q=baggage", allMember);
    const tool = await rpc(svc, "tools/call", { name: "search", arguments: { q: "baggage" } }, { "x-service-key": allMember });
    expect(tool.result.structuredContent).toEqual(rest.body);
    expect(JSON.parse(tool.result.content[0].text)).toEqual(rest.body);
    const bad = await rpc(svc, "tools/call", { name: "search", arguments: { q: "baggage", limit: 99 } });
    expect(bad.result.isError).toBe(true);
  });
});

describe("the build's index", () => {
  it("is listed in the manifest, one per vertical, with postings per field", async () => {
    const build = svc.service.deps.build.current;
    expect(
      Object.keys(build.manifest.files)
        .filter((f) => f.startsWith("search/"))
        .sort(),
    ).toEqual(
      Object.keys(build.manifest.verticals)
        .map((v) => `search/${v}.json`)
        .sort(),
    );
    const index = (await build.search("travel"))!;
    expect(index.fields).toEqual(["title", "questions", "summary", "logic", "directive", "skill", "action"]);
    const m2 = index.docs.findIndex((d) => d.id === "trv-m2");
    const postings = index.terms.get("kangaroo")!.postings;
    // [doc, field, tf] triples: the logic field (3) of trv-m2 holds the word once.
    expect(postings.slice(0, 3)).toEqual([m2, 3, 1]);
  });
});
