/** Admin key listing by label and revocation over HTTP, and the revoked key refused at once. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { peopleFixtureDist } from "./_fixture.ts";

let svc: TestService;
const admin = { authorization: `Bearer ${ADMIN_KEY}` };

beforeAll(async () => {
  svc = await startTestService(peopleFixtureDist());
});
afterAll(() => svc?.close());

describe("admin key routes", () => {
  it("lists keys by label and revokes one by id; the key is then refused", async () => {
    const issued = await svc.request("/api/keys", {
      method: "POST",
      headers: admin,
      json: { vertical: "travel", label: "ops-batch", quantity: 2 },
    });
    expect(issued.status).toBe(201);
    await svc.request("/api/keys", { method: "POST", headers: admin, json: { vertical: "travel", label: "other" } });
    const [first, second] = issued.body.keys as Array<{ key: string; id: string }>;

    const listed = await svc.request("/api/admin/keys?label=ops-batch", { headers: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.keys.map((k: { id: string }) => k.id).sort()).toEqual([first!.id, second!.id].sort());
    expect(listed.text).not.toContain(first!.key);
    expect(listed.text).not.toMatch(/"hash"/);

    const before = await svc.request("/api/demo?vertical=travel&node=trv-m7", { headers: { "x-service-key": first!.key } });
    expect(before.status).toBe(200);

    const revoked = await svc.request("/api/admin/keys/revoke", { method: "POST", headers: admin, json: { id: first!.id } });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: first!.id, status: "revoked", revoked_at: expect.any(String) });

    // Refused at once: the node's free locked view with the key's problem, never its layers.
    const after = await svc.request("/api/demo?vertical=travel&node=trv-m7", { headers: { "x-service-key": first!.key } });
    expect([after.status, after.headers.get("credential-problem")]).toEqual([200, "key_revoked"]);
    expect(after.body.node.locked_layers).toHaveLength(4);
    // The other key of the batch is untouched.
    expect((await svc.request("/api/demo?vertical=travel&node=trv-m7", { headers: { "x-service-key": second!.key } })).status).toBe(200);

    // Idempotent: a second revocation keeps the first revoked_at.
    const again = await svc.request("/api/admin/keys/revoke", { method: "POST", headers: admin, json: { key: first!.key } });
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
  });

  it("answers 401 without a bearer, 403 with a wrong one, 404 for an unknown key, 400 for a bad body", async () => {
    expect((await svc.request("/api/admin/keys")).status).toBe(401);
    expect((await svc.request("/api/admin/keys", { headers: { authorization: "Bearer wrong" } })).status).toBe(403);
    expect(
      (
        await svc.request("/api/admin/keys/revoke", {
          method: "POST",
          headers: { authorization: "Bearer wrong" },
          json: { id: "0123456789ab" },
        })
      ).status,
    ).toBe(403);
    const missing = await svc.request("/api/admin/keys/revoke", { method: "POST", headers: admin, json: { id: "0123456789ab" } });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("key_not_found");
    expect((await svc.request("/api/admin/keys/revoke", { method: "POST", headers: admin, json: {} })).status).toBe(400);
    expect(
      (await svc.request("/api/admin/keys/revoke", { method: "POST", headers: admin, json: { id: "0123456789ab", key: "x" } })).status,
    ).toBe(400);
  });
});
