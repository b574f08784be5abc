/**
 * Key management at a key service's level, over the admin API and the real `vkr` bin on the same
 * store: re-roll with a grace period (the new secret at once, the old one until the grace ends,
 * then 401 `key_rerolled`), label and expiry edits. The re-roll runs the bin (another process on
 * the store); the edits and refusals after it run the same command lines in this process
 * (cli/run.ts, what the bin runs), without a Node start per case.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runVkr, runVkrInProcess } from "../helpers/run-vkr.ts";
import { ADMIN_KEY, startTestService, T0, type TestService } from "../helpers/test-service.ts";
import { peopleFixtureDist } from "./_fixture.ts";

let svc: TestService;
const admin = { authorization: `Bearer ${ADMIN_KEY}` };
const DAY = 86_400_000;

beforeAll(async () => {
  svc = await startTestService(peopleFixtureDist());
});
afterAll(() => svc?.close());

const issue = async (label: string) => {
  const res = await svc.request("/api/keys", { method: "POST", headers: admin, json: { vertical: "travel", label } });
  expect(res.status).toBe(201);
  return res.body.keys[0] as { key: string; id: string };
};
const read = (key: string, node = "trv-m1") => svc.request(`/api/demo?vertical=travel&node=${node}`, { headers: { "x-service-key": key } });
const own = (key: string) => svc.request("/api/keys", { headers: { "x-service-key": key } });

function vkr(args: string[], run = runVkr) {
  const { dataDir, distDir } = svc.service.deps.config;
  return run([...args, "--data-dir", dataDir, "--dist-dir", distDir]);
}
const vkrHere = (args: string[]) => vkr(args, runVkrInProcess);

describe("re-roll", () => {
  it("the new secret works at once, the old one until the grace ends, then 401 key_rerolled; usage carries over", async () => {
    const { key: old, id } = await issue("reroll");
    expect((await read(old)).status).toBe(200);
    const res = await svc.request("/api/admin/keys/reroll", { method: "POST", headers: admin, json: { id, grace_seconds: 3600 } });
    expect(res.status).toBe(200);
    const fresh = res.body.key as string;
    expect(fresh).toMatch(/^svc_live_/);
    expect(fresh).not.toBe(old);
    expect(res.body).toMatchObject({ id, label: "reroll", previous_valid_until: new Date(T0 + 3600_000).toISOString() });

    expect((await read(fresh)).status).toBe(200);
    expect((await read(old)).status).toBe(200);
    // One record: both secrets count on it.
    expect((await own(fresh)).body.usage.day).toBe(3);
    expect((await own(old)).body).toMatchObject({ id, usage: { day: 3 } });
    // Listed once, under its id.
    const listed = await svc.request("/api/admin/keys?label=reroll", { headers: admin });
    expect(listed.body.keys.map((k: { id: string }) => k.id)).toEqual([id]);

    svc.clock.advance(3600_000);
    const refused = await own(old);
    expect([refused.status, refused.body.code]).toEqual([401, "key_rerolled"]);
    expect(refused.headers.get("content-type")).toMatch(/problem\+json/);
    const paid = await read(old);
    expect(paid.headers.get("credential-problem")).toBe("key_rerolled");
    expect((await svc.request("/api/verify", { headers: { "x-service-key": old } })).body).toMatchObject({
      valid: false,
      reason: "rerolled",
    });
    expect((await read(fresh)).status).toBe(200);

    // Revoking through the old secret revokes the key; a revoked key is not re-rolled.
    expect((await svc.request("/api/admin/keys/revoke", { method: "POST", headers: admin, json: { key: old } })).body.status).toBe(
      "revoked",
    );
    expect((await own(fresh)).body.status).toBe("revoked");
    const again = await svc.request("/api/admin/keys/reroll", { method: "POST", headers: admin, json: { id } });
    expect([again.status, again.body.code]).toEqual([409, "conflict"]);
  });

  it("a second re-roll leaves both earlier secrets to their own grace periods", async () => {
    const { key: first, id } = await issue("twice");
    const second = (await svc.request("/api/admin/keys/reroll", { method: "POST", headers: admin, json: { id, grace_seconds: 600 } })).body
      .key;
    svc.clock.advance(60_000);
    const third = (await svc.request("/api/admin/keys/reroll", { method: "POST", headers: admin, json: { id, grace_seconds: 0 } })).body
      .key;
    expect((await read(third)).status).toBe(200);
    expect((await own(second)).body.code).toBe("key_rerolled");
    expect((await own(first)).status).toBe(200);
    svc.clock.advance(600_000);
    expect((await own(first)).body.code).toBe("key_rerolled");
  });
});

describe("label and expiry", () => {
  it("edits the label and sets or clears an expiry; an expiry in the past refuses the key", async () => {
    const { key, id } = await issue("before");
    const relabelled = await svc.request("/api/admin/keys/update", { method: "POST", headers: admin, json: { id, label: "after" } });
    expect(relabelled.body).toMatchObject({ id, label: "after" });
    const soon = new Date(svc.clock.now() + DAY).toISOString();
    expect(
      (await svc.request("/api/admin/keys/update", { method: "POST", headers: admin, json: { id, expires_at: soon } })).body.expires_at,
    ).toBe(soon);
    svc.clock.advance(DAY);
    expect((await own(key)).body.status).toBe("expired");
    expect((await read(key)).headers.get("credential-problem")).toBe("key_expired");
    expect(
      (await svc.request("/api/admin/keys/update", { method: "POST", headers: admin, json: { id, expires_at: null } })).body.expires_at,
    ).toBe(null);
    expect((await read(key)).status).toBe(200);
    const bad = await svc.request("/api/admin/keys/update", { method: "POST", headers: admin, json: { id, expires_at: "tomorrow!" } });
    expect([bad.status, bad.body.code]).toEqual([400, "validation_failed"]);
    expect((await svc.request("/api/admin/keys/update", { method: "POST", headers: admin, json: { id } })).status).toBe(400);
  });
});

describe("vkr keys reroll, label, expire", { timeout: 240_000 }, () => {
  it("does through the CLI what the admin API does", async () => {
    const { key: old, id } = await issue("cli");
    const rerolled = await vkr(["keys", "reroll", id, "--grace-seconds", "0", "--json"]);
    expect(rerolled.code, rerolled.stderr).toBe(0);
    const fresh = JSON.parse(rerolled.stdout).key as string;
    // The CLI runs on the real clock: the server's (manual) clock is brought past the re-roll.
    svc.clock.advance(Math.max(0, Date.parse(JSON.parse(rerolled.stdout).previous_valid_until) - svc.clock.now()) + 1000);
    await new Promise((r) => setTimeout(r, 1100)); // the server's key cache (1 s) sees the CLI's change
    expect((await read(fresh)).status).toBe(200);
    expect((await own(old)).body.code).toBe("key_rerolled");
    expect(JSON.parse((await vkrHere(["keys", "label", id, "renamed", "--json"])).stdout)).toMatchObject({ id, label: "renamed" });
    expect(JSON.parse((await vkrHere(["keys", "expire", id, "2030-01-01", "--json"])).stdout).expires_at).toBe("2030-01-01T00:00:00.000Z");
    const bad = await vkrHere(["keys", "expire", id, "soon"]);
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/ISO 8601/);
    expect((await vkrHere(["keys", "reroll", id, "--grace-seconds", "-1"])).code).toBe(1);
  });
});
