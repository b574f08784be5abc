/**
 * The per-use default: retrievals do not wait for the network's charge (20–50 ms here),
 * charges go out in batches bounded by amount and time, and `kill -9` under load loses nothing
 * for good: a restarted instance charges what the dead one reserved and never sent, the token is
 * never charged more than its value and never serves more than it covers.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "./stand-ins/agent-network.ts";

const PRICE = 2_000;
const MAX_BATCH = 20_000;
let network: AgentNetworkStandIn;
let dist: string;
beforeAll(async () => {
  network = await startAgentNetwork({ chargeLatencyMs: [20, 50] });
  dist = buildContentTo(writeFixtureContent());
});
afterAll(async () => {
  await network?.close();
});

const env = (dataDir: string, extra: Record<string, string> = {}) => ({
  DATA_DIR: dataDir,
  DIST_DIR: dist,
  LOG_LEVEL: "info",
  ...agentNetworkEnv(network),
  ...extra,
});
const jtiOf = (token: string) => (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { jti: string }).jti;
const chargedOf = (token: string) => network.charges.filter((c) => c.jti === jtiOf(token)).reduce((sum, c) => sum + c.micros, 0);
const demo = (url: string, token: string, i: number) =>
  fetch(`${url}/api/demo?vertical=travel&node=trv-m${(i % 7) + 1}`, { headers: { "pay-network-pay-id": token } }).then(
    async (r) => ({ status: r.status, code: r.status === 200 ? null : ((await r.json()) as { code: string }).code }),
    () => ({ status: 0, code: "connection" }),
  );

/** `lanes` loops sending retrievals until `stop()` is true or the token is used up; counts what was served. */
async function load(
  url: string,
  token: string,
  lanes: number,
  stop: () => boolean,
  onServed: (served: number) => void = () => {},
): Promise<{ served: number; depleted: boolean }> {
  let served = 0;
  let depleted = false;
  let i = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (!stop() && !depleted) {
        const r = await demo(url, token, i++);
        if (r.status === 200) onServed(++served);
        else if (r.code === "payment_token_depleted") depleted = true;
        else if (r.status === 0)
          return; // the server is gone
        else throw new Error(`unexpected answer ${r.status} ${r.code}`);
      }
    }),
  );
  return { served, depleted };
}

describe("per-use tokens by default", { timeout: 90_000 }, () => {
  it("a retrieval does not wait for the network's charge, and charges go out as batches", async () => {
    // A slow network (400–500 ms a charge), so the difference cannot hide in a busy machine's noise.
    const slow = await startAgentNetwork({ chargeLatencyMs: [400, 500] });
    const server = await startChildServer({ ...env(mkdtempSync(join(tmpdir(), "vkr-peruse-"))), ...agentNetworkEnv(slow) });
    const chargesOf = (token: string) => slow.charges.filter((c) => c.jti === jtiOf(token));
    try {
      const token = await slow.mint({ valueMicros: 1_000_000 });
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        expect((await demo(server.url, token, i)).status).toBe(200);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      // Every charge takes at least 400 ms at the stand-in; a retrieval that waited for one could not be faster.
      expect(times[10]!).toBeLessThan(200);
      await server.kill("SIGTERM");
      expect(chargesOf(token).reduce((sum, c) => sum + c.micros, 0)).toBe(20 * PRICE);
      expect(chargesOf(token).length).toBeLessThanOrEqual(3);
    } finally {
      await server.kill();
      await slow.close();
    }
  });

  it("kill -9 under load, restart: the unsent batch is charged, never more than the token covers", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-peruse-crash-"));
    const extra = { PER_USE_CHARGE_BATCH_MAX_USD_MICROS: String(MAX_BATCH) };
    const value = 600 * PRICE;
    const token = await network.mint({ valueMicros: value });
    let doomed: ChildServer | null = await startChildServer(env(dataDir, extra));
    let restarted: ChildServer | null = null;
    try {
      const url = doomed.url;
      let killed = false;
      // Mid-load, a quarter into the token (a fixed delay could spend it all on a fast machine):
      // some retrievals are reserved and pending in memory, one batch may be in flight.
      let quarter: () => void = () => {};
      const reachedQuarter = new Promise<void>((resolve) => (quarter = resolve));
      const first = load(
        url,
        token,
        16,
        () => killed,
        (served) => served >= 150 && quarter(),
      );
      await Promise.race([reachedQuarter, new Promise((r) => setTimeout(r, 15_000))]);
      await doomed.kill("SIGKILL");
      killed = true;
      const before = await first;
      expect(before.served).toBeGreaterThan(20);
      expect(before.depleted).toBe(false);
      // Batched by amount: far fewer charge calls than retrievals.
      expect(network.charges.filter((c) => c.jti === jtiOf(token)).length).toBeLessThanOrEqual(Math.ceil(before.served / 10) + 2);
      expect(chargedOf(token)).toBeLessThanOrEqual(before.served * PRICE + MAX_BATCH);
      doomed = null;
      // The token is kept for reconciliation, sealed: the store's files never hold it in clear.
      const stored = readdirSync(dataDir)
        .map((f) => readFileSync(join(dataDir, f)).toString("latin1"))
        .join("\n");
      expect(stored).toContain("peruse:open:");
      expect(stored).not.toContain(token.split(".")[2]!);

      restarted = await startChildServer(env(dataDir, extra));
      const server = restarted;
      // The dead instance's heartbeat goes stale, then its reserved-and-unsent amount is charged.
      const deadline = Date.now() + 20_000;
      while (!server.output().includes("per-use charges reconciled after a crash") && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      expect(server.output()).toContain("per-use charges reconciled after a crash");
      // Everything served is charged, except a call the kill cut off on its way to the network: that
      // one is counted as charged (never sent twice) and logged with its amount, at most one batch.
      const interrupted = server
        .output()
        .split("\n")
        .filter((line) => line.includes("per-use charge interrupted by a crash"))
        .reduce((sum, line) => sum + (JSON.parse(line) as { amount_usd_micros: number }).amount_usd_micros, 0);
      expect(interrupted).toBeLessThanOrEqual(MAX_BATCH);
      expect(chargedOf(token) + interrupted).toBeGreaterThanOrEqual(before.served * PRICE);

      // Spend the rest: the token never serves more than its value covers.
      const after = await load(server.url, token, 16, () => false);
      expect(after.depleted).toBe(true);
      expect((before.served + after.served) * PRICE).toBeLessThanOrEqual(value);
      await server.kill("SIGTERM");
      // Everything reserved was charged once: at most the interrupted call's amount is missing, nothing is doubled.
      expect(chargedOf(token)).toBeLessThanOrEqual(value);
      expect(chargedOf(token)).toBeGreaterThanOrEqual(value - MAX_BATCH);
      expect(server.output()).not.toContain(token);
    } finally {
      await doomed?.kill("SIGKILL");
      await restarted?.kill();
    }
  });
});
