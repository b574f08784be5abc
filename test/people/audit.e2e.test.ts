/**
 * The audit trail: every action of the list is driven for real (admin API, a paid agent-network
 * checkout and a refused one, a trial, the CLI's publish) and read back through
 * GET /api/admin/audit and `vkr audit`; filters and pages; and a scan of the whole trail for
 * anything secret (keys, the admin bearer, payment tokens, card numbers).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../runtime/domain/audit/audit-log.ts";
import { createPurchaseStore, type PurchaseRecord } from "../../runtime/domain/payments/purchases/purchase-store.ts";
import { acknowledgePurchase } from "../../runtime/domain/payments/purchases/reconcile.ts";
import { runVkr } from "../helpers/run-vkr.ts";
import { ADMIN_KEY, type TestService } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "../payments/stand-ins/agent-network.ts";
import { startPaymentsService } from "../payments/start-payments-service.ts";

let svc: TestService;
let network: AgentNetworkStandIn;
const admin = { authorization: `Bearer ${ADMIN_KEY}` };
const secrets: string[] = [ADMIN_KEY];

beforeAll(async () => {
  network = await startAgentNetwork();
  svc = await startPaymentsService(agentNetworkEnv(network));
});
afterAll(async () => {
  await svc?.close();
  await network?.close();
});

async function everything(query = ""): Promise<AuditEntry[]> {
  const all: AuditEntry[] = [];
  let cursor: string | null = null;
  do {
    const res = await svc.request(`/api/admin/audit?limit=3${query}${cursor ? `&cursor=${cursor}` : ""}`, { headers: admin });
    expect(res.status).toBe(200);
    all.push(...(res.body.entries as AuditEntry[]));
    cursor = res.body.next;
  } while (cursor);
  return all;
}

function vkr(args: string[], env: Record<string, string> = {}) {
  const { dataDir, distDir } = svc.service.deps.config;
  return runVkr(args, { DATA_DIR: dataDir, DIST_DIR: distDir, ...env });
}

describe("audit trail", { timeout: 240_000 }, () => {
  it("records every action, filters and pages it, and holds no secret", async () => {
    // Key administration through the admin API.
    const issued = await svc.request("/api/keys", {
      method: "POST",
      headers: admin,
      json: { vertical: "travel", label: "audited", agent_id: "Audit-Agent" },
    });
    expect(issued.status).toBe(201);
    const { key, id } = issued.body.keys[0] as { key: string; id: string };
    secrets.push(key);
    const post = (path: string, json: unknown) => svc.request(path, { method: "POST", headers: admin, json });
    secrets.push((await post("/api/admin/keys/reroll", { id, grace_seconds: 60 })).body.key);
    expect((await post("/api/admin/keys/update", { id, label: "renamed" })).status).toBe(200);
    expect((await post("/api/admin/keys/update", { id, expires_at: "2030-01-01" })).status).toBe(200);
    expect((await post("/api/admin/keys/revoke", { id })).status).toBe(200);

    // A paid checkout, and one whose charge the network refuses.
    const token = await network.mint({ now: svc.clock.now(), valueMicros: 100_000_000 });
    secrets.push(token);
    const buy = (payToken: string, agent: string) =>
      svc.request("/api/checkout", {
        method: "POST",
        headers: { "pay-network-pay-id": payToken },
        json: { vertical: "travel", payment_method: "agent_network", agent_id: agent },
      });
    const paid = await buy(token, "paying-agent");
    expect(paid.status).toBe(201);
    secrets.push(paid.body.keys[0].key);
    const paidId = paid.body.receipt.purchase_id as string;
    network.mode = 402;
    const refusedToken = await network.mint({ now: svc.clock.now(), valueMicros: 100_000_000 });
    secrets.push(refusedToken);
    expect((await buy(refusedToken, "refused-agent")).status).toBe(402);
    network.mode = "ok";

    // A refund due (what a crash after the charge leaves when no client can come back), then handled.
    const store = createPurchaseStore(svc.service.deps.backend);
    const base = (await store.get(paidId))!;
    const due: PurchaseRecord = { ...base, id: "pur_refund_test", history: [], key_ids: [], key_hashes: [] };
    await store.save(due, "refund_due", svc.clock.now(), "test: refund due");
    await acknowledgePurchase(svc.service.deps, { id: due.id, note: "refunded by hand" }, svc.clock.now());

    // A trial key.
    const trial = await svc.request("/api/trial", { method: "POST", json: { vertical: "travel", agent_id: "trial-agent" } });
    expect(trial.status).toBe(200);
    secrets.push(trial.body.key);
    expect(trial.body.key).toMatch(/^svc_trial_/);

    // A publication by the CLI, on the same state store.
    const releases = mkdtempSync(join(tmpdir(), "vkr-audit-releases-"));
    const published = await vkr(["publish", "--dist", svc.service.deps.config.distDir, "--allow-dev-build"], { RELEASE_DIR: releases });
    expect(published.code, published.stderr).toBe(0);

    const all = await everything();
    const actions = new Set(all.map((e) => e.action));
    for (const action of [
      "payments.configured",
      "key.issued",
      "key.rerolled",
      "key.relabelled",
      "key.expiry_set",
      "key.revoked",
      "purchase.reserved",
      "purchase.charging",
      "purchase.charged",
      "purchase.issued",
      "purchase.released",
      "purchase.refund_due",
      "purchase.refunded",
      "release.published",
    ])
      expect(actions, action).toContain(action);
    // Pages are newest first, without repeats.
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort().reverse());

    const adminEntry = all.find((e) => e.action === "key.rerolled")!;
    expect(adminEntry).toMatchObject({
      actor: expect.stringMatching(/^admin:[0-9a-f]{8}$/),
      subject: `key:${id}`,
      account: "audit-agent",
      outcome: "ok",
    });
    expect(all.find((e) => e.action === "purchase.charged" && e.subject === `purchase:${paidId}`)).toMatchObject({
      actor: "payment:agent_network",
      account: "paying-agent",
    });
    expect(
      all
        .filter((e) => e.action === "payments.configured")
        .map((e) => [e.subject, e.outcome])
        .sort(),
    ).toEqual([
      ["method:agent_network", "available"],
      ["method:card", "unavailable"],
      ["method:http402", "unavailable"],
    ]);

    // Filters.
    const ofKey = await everything(`&key=${id}`);
    expect(new Set(ofKey.map((e) => e.action))).toEqual(
      new Set(["purchase.reserved", "purchase.issued", "key.issued", "key.rerolled", "key.relabelled", "key.expiry_set", "key.revoked"]),
    );
    expect((await everything("&action=purchase.")).every((e) => e.action.startsWith("purchase."))).toBe(true);
    expect((await everything("&account=Paying-Agent")).every((e) => e.account === "paying-agent")).toBe(true);
    expect(await everything(`&to=${new Date(svc.clock.now() - 1000).toISOString()}`)).toEqual([]);
    expect((await svc.request("/api/admin/audit?cursor=nope", { headers: admin })).body.code).toBe("invalid_cursor");
    expect((await svc.request("/api/admin/audit")).status).toBe(401);

    // The CLI reads the same trail.
    const cli = await vkr(["audit", "--key", id, "--json"]);
    expect(cli.code, cli.stderr).toBe(0);
    expect((JSON.parse(cli.stdout).entries as AuditEntry[]).map((e) => e.id).sort()).toEqual(ofKey.map((e) => e.id).sort());

    // No secret anywhere: keys, the admin bearer, payment tokens (JWTs), card numbers.
    const text = JSON.stringify(all.map(({ id: _id, ...rest }) => rest));
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/svc_(live|trial)_[0-9A-Za-z]{22}/);
    expect(text).not.toMatch(/eyJ[0-9A-Za-z_-]{10,}/);
    expect(text).not.toMatch(/\b\d{13,19}\b/);
  });
});
