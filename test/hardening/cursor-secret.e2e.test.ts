/**
 * With no CURSOR_SECRET there is no public default to forge delta cursors with.
 * A random secret is generated once and kept in the state store: cursors survive a restart on
 * the same store, and instances sharing a Redis accept each other's cursors.
 */
import { createHmac } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deletePrefix, SHARED_REDIS_URL, uniquePrefix } from "../cluster/_cluster.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

/** The constant every deployment without CURSOR_SECRET used to sign with. */
const OLD_PUBLIC_DEFAULT = "vkr-delta-cursor-v1";
const prefix = uniquePrefix();
let dist: string;
const running: TestService[] = [];

beforeAll(() => void (dist = buildContentTo(writeFixtureContent())));
afterAll(async () => {
  await Promise.all(running.map((s) => s.close()));
  await deletePrefix(SHARED_REDIS_URL, prefix);
});

async function start(env: Record<string, string>): Promise<TestService> {
  const svc = await startTestService(dist, env);
  running.push(svc);
  return svc;
}
async function memberKey(svc: TestService): Promise<string> {
  return (await svc.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: { vertical: "all" } }))
    .body.keys[0].key;
}
const delta = (svc: TestService, key: string, query: string) => svc.request(`/v1/delta?${query}`, { headers: { "x-service-key": key } });

/** A cursor signed the way cursor.ts signs, with `secret`. */
function forge(secret: string, at: string, id: string): string {
  const payload = Buffer.from(JSON.stringify([1, at, id]), "utf8").toString("base64url");
  const mac = createHmac("sha256", secret).update(`delta-cursor:${payload}`).digest().subarray(0, 16).toString("base64url");
  return `${payload}.${mac}`;
}

describe("delta cursors without CURSOR_SECRET", () => {
  it("a cursor forged with the old public default is refused", async () => {
    const svc = await start({});
    const res = await delta(
      svc,
      await memberKey(svc),
      `cursor=${encodeURIComponent(forge(OLD_PUBLIC_DEFAULT, "2000-01-01T00:00:00Z", "a"))}`,
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_cursor");
  });

  it("a cursor survives a restart on the same store", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-cursor-"));
    const first = await start({ DATA_DIR: dataDir });
    const key = await memberKey(first);
    const page = await delta(first, key, "limit=2");
    expect(page.body.has_more).toBe(true);
    const rest = await delta(first, key, `cursor=${encodeURIComponent(page.body.next_cursor)}`);
    await first.close();
    const second = await start({ DATA_DIR: dataDir });
    const again = await delta(second, key, `cursor=${encodeURIComponent(page.body.next_cursor)}`);
    expect(again.status).toBe(200);
    expect(again.body.entries).toEqual(rest.body.entries);
  });

  it("two instances on one Redis accept each other's cursors, and a separate deployment does not", async () => {
    const redis = { REDIS_URL: SHARED_REDIS_URL, REDIS_PREFIX: prefix };
    const [a, b] = await Promise.all([start(redis), start(redis)]);
    const key = await memberKey(a);
    const fromA = await delta(a, key, "limit=2");
    const fromB = await delta(b, key, "limit=2");
    expect(fromB.body.next_cursor).toBe(fromA.body.next_cursor);
    const onB = await delta(b, key, `cursor=${encodeURIComponent(fromA.body.next_cursor)}`);
    expect(onB.status).toBe(200);
    expect(onB.body.entries.length).toBeGreaterThan(0);
    const elsewhere = await start({});
    const refused = await delta(elsewhere, await memberKey(elsewhere), `cursor=${encodeURIComponent(fromA.body.next_cursor)}`);
    expect(refused.body.code).toBe("invalid_cursor");
  });
});
