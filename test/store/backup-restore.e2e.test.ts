/**
 * `vkr backup` and `vkr restore` (the real bin) against the bundled server as a child process on
 * the embedded store: a backup taken during a burst of paid purchases (agent-network stand-in),
 * admin issuance and metered reads restores into a fresh folder with everything acknowledged
 * before the backup started; restore refuses a running server's folder, a damaged file and a
 * newer layout, and upgrades an older one. The backup under load and its restore run the bin; the
 * refusals and the upgrade run the same command lines in this process (cli/run.ts, what the bin
 * runs), without a Node start per case.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planWindows } from "../../runtime/domain/metering/quota.ts";
import { createPurchaseStore } from "../../runtime/domain/payments/purchases/purchase-store.ts";
import { createSqliteBackend, STATE_LAYOUT } from "../../runtime/state/storage/sqlite-backend.ts";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { membershipRecord } from "../helpers/key-record.ts";
import { runVkr, runVkrInProcess } from "../helpers/run-vkr.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "../payments/stand-ins/agent-network.ts";
import { peopleFixtureDist } from "../people/_fixture.ts";

const ADMIN = "backup-test-admin-secret-0000";
let dist: string;
let network: AgentNetworkStandIn;
let server: ChildServer;
let dataDir: string;

const vkr = (args: string[]) => runVkr(args, { DIST_DIR: dist });
const vkrHere = (args: string[]) => runVkrInProcess(args, { DIST_DIR: dist });

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `vkr-${name}-`));

beforeAll(async () => {
  dist = peopleFixtureDist();
  network = await startAgentNetwork();
  dataDir = tmp("backup-live");
  server = await startChildServer({ DIST_DIR: dist, DATA_DIR: dataDir, ADMIN_KEY: ADMIN, ...agentNetworkEnv(network, true) });
}, 120_000);
afterAll(async () => {
  await server?.kill();
  await network?.close();
});

describe("vkr backup during a burst, vkr restore into a fresh folder", { timeout: 300_000 }, () => {
  const backupFile = join(tmp("backups"), "state.vkrbak");

  it("keeps every purchase, key and count acknowledged before the backup started", async () => {
    const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
      fetch(server.url + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(json) });
    const admin = { authorization: `Bearer ${ADMIN}` };
    const issued = await post("/api/keys", { vertical: "travel", quantity: 5, label: "readers" }, admin);
    expect(issued.status).toBe(201);
    const readers = ((await issued.json()) as { keys: Array<{ key: string }> }).keys.map((k) => k.key);

    // Acknowledgements with the moment their answer arrived.
    const reads: Array<{ key: string; at: number }> = [];
    const purchases: Array<{ id: string; key: string; at: number }> = [];
    const adminKeys: Array<{ key: string; at: number }> = [];
    let stop = false;
    let n = 0;
    const readLoop = async (i: number) => {
      for (let j = 0; !stop; j++) {
        const key = readers[(i + j) % readers.length]!;
        const res = await fetch(`${server.url}/api/demo?vertical=travel&node=trv-m7`, { headers: { "x-service-key": key } });
        await res.arrayBuffer();
        if (res.status === 200) reads.push({ key, at: performance.now() });
      }
    };
    const buyLoop = async () => {
      while (!stop) {
        const token = await network.mint({ now: Date.now(), valueMicros: 100_000_000 });
        const res = await post(
          "/api/checkout",
          { vertical: "travel", payment_method: "agent_network", quantity: 1, agent_id: `buyer-${n++}` },
          {
            "pay-network-pay-id": token,
          },
        );
        const body = (await res.json()) as { keys?: Array<{ key: string }>; receipt?: { purchase_id: string } };
        if (res.status === 201) purchases.push({ id: body.receipt!.purchase_id, key: body.keys![0]!.key, at: performance.now() });
      }
    };
    const adminLoop = async () => {
      while (!stop) {
        const res = await post("/api/keys", { vertical: "travel", label: "burst" }, admin);
        const body = (await res.json()) as { keys?: Array<{ key: string }> };
        if (res.status === 201) adminKeys.push({ key: body.keys![0]!.key, at: performance.now() });
      }
    };
    const loops = [...Array.from({ length: 8 }, (_, i) => readLoop(i)), buyLoop(), buyLoop(), adminLoop()];
    // The backup starts once each kind of write has been acknowledged a few times (however slow the machine).
    while (reads.length < 40 || purchases.length < 2 || adminKeys.length < 2) await new Promise((r) => setTimeout(r, 50));
    const startedAt = performance.now();
    const backup = await vkr(["backup", backupFile, "--data-dir", dataDir, "--json"]);
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    await Promise.all(loops);
    expect(backup.code, backup.stderr).toBe(0);
    const manifest = JSON.parse(backup.stdout) as { layout: number; sha256: string };
    expect(manifest.layout).toBe(STATE_LAYOUT);

    const beforeStart = <T extends { at: number }>(list: T[]) => list.filter((e) => e.at < startedAt);
    expect(beforeStart(purchases).length).toBeGreaterThan(0);
    expect(beforeStart(adminKeys).length).toBeGreaterThan(0);
    expect(beforeStart(reads).length).toBeGreaterThanOrEqual(40);
    // The burst went on while the backup ran: a copy that waited for a quiet moment would not show this.
    expect(purchases.length + adminKeys.length + reads.length).toBeGreaterThan(
      beforeStart(purchases).length + beforeStart(adminKeys).length + beforeStart(reads).length,
    );

    const restoredDir = tmp("backup-restored");
    const restored = await vkr(["restore", backupFile, "--data-dir", restoredDir, "--json"]);
    expect(restored.code, restored.stderr).toBe(0);

    // The purchase records themselves, read from the restored file.
    const backend = createSqliteBackend({ dataDir: restoredDir });
    const store = createPurchaseStore(backend);
    for (const p of beforeStart(purchases)) expect((await store.get(p.id))?.state, p.id).toBe("issued");
    await backend.close();

    const second = await startChildServer({ DIST_DIR: dist, DATA_DIR: restoredDir, ADMIN_KEY: ADMIN });
    try {
      const usage = async (key: string) => {
        const res = await fetch(`${second.url}/api/keys`, { headers: { "x-service-key": key } });
        expect(res.status, key.slice(0, 14)).toBe(200);
        return ((await res.json()) as { usage: { day: number } }).usage.day;
      };
      for (const p of beforeStart(purchases)) await usage(p.key);
      for (const k of beforeStart(adminKeys)) await usage(k.key);
      // Each reader's count is at least what was acknowledged before the backup began (reads in
      // flight then may be in it too) and at most everything acknowledged.
      for (const key of readers) {
        const acked = beforeStart(reads).filter((r) => r.key === key).length;
        const day = await usage(key);
        expect(day, key.slice(0, 14)).toBeGreaterThanOrEqual(acked);
        expect(day).toBeLessThanOrEqual(reads.filter((r) => r.key === key).length);
      }
    } finally {
      await second.kill();
    }
  });

  it("refuses the folder of a running server", async () => {
    const res = await vkrHere(["restore", backupFile, "--data-dir", dataDir, "--replace"]);
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/in use by a running server \(pid \d+\)/);
  });

  it("refuses a damaged file and leaves the folder empty", async () => {
    const damaged = join(tmp("backup-damaged"), "damaged.vkrbak");
    copyFileSync(backupFile, damaged);
    const bytes = readFileSync(damaged);
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
    writeFileSync(damaged, bytes);
    const target = tmp("backup-target");
    const res = await vkrHere(["restore", damaged, "--data-dir", target]);
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/damaged/);
    expect(existsSync(join(target, "state.sqlite"))).toBe(false);
    const notBackup = join(target, "..", "plain.txt");
    writeFileSync(notBackup, "hello\n");
    expect((await vkrHere(["restore", notBackup, "--data-dir", target])).stderr).toMatch(/not a backup made by vkr backup/);
  });

  it("refuses a newer layout, and upgrades an older one with its counts", async () => {
    const newer = tmp("backup-newer");
    const db = new Database(join(newer, "state.sqlite"));
    db.exec("create table kv (key text primary key, value text not null)");
    db.pragma(`user_version = ${STATE_LAYOUT + 1}`);
    db.close();
    const newerFile = join(newer, "newer.vkrbak");
    expect((await vkrHere(["backup", newerFile, "--data-dir", newer])).code).toBe(0);
    const refused = await vkrHere(["restore", newerFile, "--data-dir", tmp("backup-target")]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(new RegExp(`layout ${STATE_LAYOUT + 1}, written by a newer version`));

    // Layout 0: one row per counter, as the first versions wrote it.
    const older = tmp("backup-older");
    const record = membershipRecord("a1b2c3d4e5f6");
    const day = planWindows(
      record,
      { hourly_rate_limit: 1, daily_standard: 1, daily_scale: 1, per_key_monthly: 1 } as never,
      Date.now(),
    ).find((w) => w.name === "day")!;
    const old = new Database(join(older, "state.sqlite"));
    old.exec(`
      create table kv (key text primary key, value text not null) without rowid;
      create table counters (key text primary key, n integer not null, expires_at integer not null) without rowid;
    `);
    old.prepare("insert into kv values (?, ?)").run(`keys:${record.hash}`, JSON.stringify(record));
    old.prepare("insert into counters values (?, ?, ?)").run(day.key, 7, day.expiresAt);
    old.close();
    const olderFile = join(older, "older.vkrbak");
    expect((await vkrHere(["backup", olderFile, "--data-dir", older])).code).toBe(0);
    const target = tmp("backup-target");
    const res = await vkrHere(["restore", olderFile, "--data-dir", target, "--json"]);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ layout: STATE_LAYOUT, manifest: { layout: 0 } });
    const backend = createSqliteBackend({ dataDir: target });
    expect(await backend.readCounters([day.key], Date.now(), [day.row])).toEqual([7]);
    expect(await backend.records.getItem(`keys:${record.hash}`)).toMatchObject({ id: record.id });
    await backend.close();
  });

  it("refuses to overwrite a state without --replace, and moves it aside with it", async () => {
    const target = tmp("backup-replace");
    expect((await vkrHere(["restore", backupFile, "--data-dir", target])).code).toBe(0);
    const again = await vkrHere(["restore", backupFile, "--data-dir", target]);
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/--replace/);
    const replaced = await vkrHere(["restore", backupFile, "--data-dir", target, "--replace", "--json"]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(existsSync(join(JSON.parse(replaced.stdout).replaced, "state.sqlite"))).toBe(true);
  });
});
