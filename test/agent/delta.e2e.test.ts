/** GET /v1/delta over real HTTP: paging with any limit, `since` boundaries, cursors across a rebuild, and every refusal. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDataInProcess } from "../helpers/build-in-process.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { ADDED_IN_V2_AT, TIMELINE, TIMELINE_V2, UPDATED_AT } from "./_delta-fixture.ts";

let svc: TestService;
let dist: string;
let allKey: string;
let travelMember: string;
let travelTrial: string;

const issue = async (s: TestService, vertical: string) =>
  (await s.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: { vertical } })).body.keys[0]
    .key as string;
const delta = (s: TestService, query: string, key?: string) =>
  s.request(`/v1/delta?${query}`, { headers: key ? { "x-service-key": key } : {} });

/** Follows next_cursor to the end; checks the Link header on the way. */
async function readAll(
  s: TestService,
  key: string,
  query: string,
): Promise<{ ids: string[]; entries: any[]; cursor: string | null; pages: number }> {
  const entries: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  for (;;) {
    const res = await delta(s, `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, key);
    expect(res.status).toBe(200);
    pages++;
    entries.push(...res.body.entries);
    if (res.body.next_cursor !== null) cursor = res.body.next_cursor;
    if (!res.body.has_more) {
      expect(res.headers.get("link")).toBeNull();
      break;
    }
    expect(res.headers.get("link")).toBe(
      `</v1/delta?${new URLSearchParams([...new URLSearchParams(query)].filter(([k]) => k !== "cursor")).toString()}&cursor=${encodeURIComponent(res.body.next_cursor)}>; rel="next"`.replace(
        "?&",
        "?",
      ),
    );
    if (pages > 100) throw new Error("feed does not end");
  }
  return { ids: entries.map((e) => e.id), entries, cursor, pages };
}

beforeAll(async () => {
  // Built in-process: the timelines are this file's own content, so no other file shares a cached CLI build.
  dist = await buildDataInProcess(writeFixtureContent(undefined, TIMELINE));
  svc = await startTestService(dist);
  allKey = await issue(svc, "all");
  travelMember = await issue(svc, "travel");
  travelTrial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "delta-agent", vertical: "travel" } })).body.key;
});
afterAll(() => svc?.close());

describe("paging", () => {
  it("limits 1, 7 and 1000 give the same sequence: every entry once, in (at, id) order", async () => {
    const one = await readAll(svc, allKey, "limit=1");
    const seven = await readAll(svc, allKey, "limit=7");
    const all = await readAll(svc, allKey, "limit=1000");
    expect(one.ids).toEqual(all.ids);
    expect(seven.ids).toEqual(all.ids);
    expect(all.pages).toBe(1);
    expect(seven.pages).toBe(Math.ceil(all.ids.length / 7));
    // 19 nodes added, 6 root nodes updated, 1 deprecated.
    expect(all.ids).toHaveLength(26);
    expect(new Set(all.ids).size).toBe(26);
    const keys = all.entries.map((e) => `${e.at}\u0000${e.id}`);
    expect(keys).toEqual([...keys].sort());
    expect(all.entries.find((e) => e.change === "deprecated")).toMatchObject({
      node_id: "re-two",
      vertical: "real-estate",
      replaced_by: "re-one",
    });
  });

  it("defaults to 100 entries a page and meters each page as one retrieval", async () => {
    const key = await issue(svc, "all");
    const res = await delta(svc, "", key);
    expect(res.body.entries).toHaveLength(26);
    expect(res.body.has_more).toBe(false);
    expect(res.headers.get("ratelimit")).toMatch(/^"hour";r=199;/);
    await delta(svc, "limit=2", key);
    expect((await svc.request("/api/keys", { headers: { "x-service-key": key } })).body.usage.hour).toBe(2);
  });

  it("covers only the verticals the key can read when `vertical` is omitted", async () => {
    const { entries } = await readAll(svc, travelMember, "limit=5");
    expect(new Set(entries.map((e) => e.vertical))).toEqual(new Set(["travel", "ai-compliance", "a2a-handoff"]));
  });

  it("scopes to one vertical, resolving aliases", async () => {
    const { entries } = await readAll(svc, travelMember, "vertical=ethics&limit=2");
    expect(entries.map((e) => e.id)).toEqual([
      "ai-compliance/aic-start/added",
      "ai-compliance/aic-second/added",
      "ai-compliance/aic-start/updated",
    ]);
  });
});

describe("since", () => {
  it("returns only entries strictly after the instant", async () => {
    const at = await readAll(svc, allKey, `since=${UPDATED_AT}`);
    expect(at.entries.every((e) => e.at > UPDATED_AT)).toBe(true);
    expect(at.ids).toEqual(["real-estate/re-two/deprecated"]);
    const before = await readAll(svc, allKey, `since=2026-11-10T11:59:59Z`);
    expect(before.entries.filter((e) => e.at === UPDATED_AT)).toHaveLength(6);
    expect(before.ids).toHaveLength(7);
  });

  it("accepts zone offsets, fractions and plain dates (midnight UTC)", async () => {
    expect((await readAll(svc, allKey, `since=${encodeURIComponent("2026-11-10T13:00:00+01:00")}`)).ids).toHaveLength(1);
    expect((await readAll(svc, allKey, "since=2026-11-10T11:59:59.999Z")).ids).toHaveLength(7);
    expect((await readAll(svc, allKey, "since=2026-11-10")).ids).toHaveLength(7);
    expect((await readAll(svc, allKey, "since=2026-12-01")).ids).toEqual([]);
  });

  it("combines with a cursor: the later bound wins", async () => {
    const first = await delta(svc, "limit=1", allKey);
    const res = await delta(svc, `since=2026-11-14&cursor=${encodeURIComponent(first.body.next_cursor)}`, allKey);
    expect(res.body.entries.map((e: any) => e.id)).toEqual(["real-estate/re-two/deprecated"]);
  });

  it.each(["yesterday", "2026-02-30", "2026-11-10T12:00:00", "2026-11-10 12:00:00Z", ""])("400 for since=%j", async (since) => {
    const res = await delta(svc, `since=${encodeURIComponent(since)}`, allKey);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors[0].pointer).toBe("/query/since");
  });
});

describe("cursors", () => {
  it("stay valid across a rebuild that adds a node: exactly the new entry follows, nothing seen reappears", async () => {
    const v1 = await readAll(svc, allKey, "limit=4");
    expect(v1.cursor).not.toBeNull();
    const end = await delta(svc, `cursor=${encodeURIComponent(v1.cursor!)}`, allKey);
    expect(end.body).toEqual({ entries: [], next_cursor: v1.cursor, has_more: false });

    // The new build runs on the same deployment's state store, which keeps the cursor secret.
    const v2 = await startTestService(await buildDataInProcess(writeFixtureContent(undefined, TIMELINE_V2)), {
      DATA_DIR: svc.service.deps.config.dataDir,
    });
    try {
      const key = await issue(v2, "all");
      const next = await delta(v2, `cursor=${encodeURIComponent(v1.cursor!)}`, key);
      expect(next.status).toBe(200);
      expect(next.body.entries).toEqual([
        expect.objectContaining({ id: "travel/trv-m8/added", change: "added", at: ADDED_IN_V2_AT, node_id: "trv-m8" }),
      ]);
      expect(next.body.has_more).toBe(false);
      const whole = await readAll(v2, key, "limit=7");
      expect(whole.ids).toEqual([...v1.ids, "travel/trv-m8/added"]);
    } finally {
      await v2.close();
    }
  });

  it("are refused (400 invalid_cursor) when altered, forged or signed with another secret", async () => {
    const cursor: string = (await delta(svc, "limit=3", allKey)).body.next_cursor;
    const [payload, mac] = cursor.split(".");
    const forgedPayload = Buffer.from(JSON.stringify([1, "2026-01-01T00:00:00Z", "x"])).toString("base64url");
    const flipped = payload!.slice(0, -1) + (payload!.endsWith("A") ? "B" : "A");
    for (const bad of [`${flipped}.${mac}`, `${forgedPayload}.${mac}`, "not-a-cursor", `${payload}.`, cursor + "x"]) {
      const res = await delta(svc, `cursor=${encodeURIComponent(bad)}`, allKey);
      expect(res.status, bad).toBe(400);
      expect(res.body.code).toBe("invalid_cursor");
    }
    // The same build, served by a deployment with another cursor secret.
    const other = await startTestService(dist, {
      CURSOR_SECRET: "another-secret-0123456789",
    });
    try {
      const res = await delta(other, `cursor=${encodeURIComponent(cursor)}`, await issue(other, "all"));
      expect(res.body.code).toBe("invalid_cursor");
    } finally {
      await other.close();
    }
  });
});

describe("refusals", () => {
  it.each([
    ["no key", undefined, "key_missing"],
    ["a trial key", (): string => travelTrial, "membership_required"],
    ["a malformed key", (): string => "svc_live_short", "key_invalid"],
    ["an unknown key", (): string => "svc_live_" + "A".repeat(22), "key_invalid"],
  ] as const)("401 for %s", async (_name, key, code) => {
    const res = await delta(svc, "", key?.());
    expect(res.status).toBe(401);
    expect(res.body.code).toBe(code);
  });

  it("does not take the key from the query string", async () => {
    expect((await svc.request(`/v1/delta?key=${allKey}`)).status).toBe(401);
  });

  it("403 for a vertical the key cannot read, 400 for an unknown one", async () => {
    const forbidden = await delta(svc, "vertical=real-estate", travelMember);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe("vertical_forbidden");
    const unknown = await delta(svc, "vertical=astrology", travelMember);
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("vertical_unknown");
  });

  it.each(["0", "1001", "-1", "ten", "1.5"])("400 for limit=%s", async (limit) => {
    const res = await delta(svc, `limit=${limit}`, allKey);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].pointer).toBe("/query/limit");
  });

  it("does not meter refused requests", async () => {
    const key = await issue(svc, "travel");
    await delta(svc, "vertical=real-estate", key);
    await delta(svc, "limit=0", key);
    expect((await svc.request("/api/keys", { headers: { "x-service-key": key } })).body.usage.hour).toBe(0);
  });
});
