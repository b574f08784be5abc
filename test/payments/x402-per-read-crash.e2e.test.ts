/**
 * kill -9 at each step of a paid read (x402 per read): the bundled server runs as a child process
 * with VKR_FAILPOINT=<point> and dies there; it is restarted on the same state (SQLite) and the
 * payer sends the same payment again. At every step the payment settles at most once, the read is
 * served at most once, and nothing is served without a payment that settled:
 * - perread:recorded (the record written, /settle not called): the retry settles and serves;
 * - killed while /settle hangs, and perread:settled (settled on chain, its answer lost): the retry
 *   asks settle again, "nonce used" after our own attempt counts as paid, and serves;
 * - perread:served (recorded as served, the answer lost): the read was paid and is not served again.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { type FacilitatorStandIn, payWith, startFacilitator, type Wallet, x402Env } from "./stand-ins/x402-facilitator.ts";

const PAID = "/api/demo?vertical=travel&node=trv-m7&pay=x402";

let facilitator: FacilitatorStandIn;
let dist: string;
beforeAll(async () => {
  facilitator = await startFacilitator();
  dist = buildContentTo(writeFixtureContent());
});
afterAll(async () => {
  await facilitator?.close();
});

interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

const CASES = [
  // [how it dies, settlements before the retry, what the retry gets]
  ["perread:recorded", 0, 200],
  ["while /settle hangs", 0, 200],
  ["perread:settled", 1, 200],
  ["perread:served", 1, 402],
] as const;

describe("kill -9 at each step of a paid read, then the same payment again", { timeout: 120_000 }, () => {
  it.each(CASES)("%s", async (point, settledBeforeRetry, retryStatus) => {
    const wallet = facilitator.wallet();
    let header = "";
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-perread-crash-"));
    const failpoint = point.startsWith("perread:") ? point : undefined;
    const doomed = await startChildServer({ ..._env(dataDir), ...(failpoint ? { VKR_FAILPOINT: failpoint } : {}) });
    const died = new Promise<NodeJS.Signals | null>((resolve) => doomed.proc.once("exit", (_code, signal) => resolve(signal)));
    const required = await _get(doomed.url);
    expect(required.status).toBe(402);
    header = await payWith(wallet, 2, _decode(required.headers.get("payment-required")!).accepts[0]);
    let server: ChildServer | undefined;
    try {
      if (failpoint) {
        // The connection drops with the process: no answer, so no content.
        await expect(_get(doomed.url, header)).rejects.toThrow();
      } else {
        facilitator.mode = "settle_hang";
        const settles = facilitator.calls.filter((c) => c.path === "/settle").length;
        const pending = _get(doomed.url, header).catch(() => null);
        while (facilitator.calls.filter((c) => c.path === "/settle").length === settles) await new Promise((r) => setTimeout(r, 20));
        await doomed.kill("SIGKILL");
        expect(await pending).toBeNull();
        facilitator.mode = "ok";
      }
      expect(await died).toBe("SIGKILL");
      if (failpoint) expect(doomed.output()).toContain(`failpoint ${failpoint}`);
      expect(_settlementsOf(wallet)).toHaveLength(settledBeforeRetry);

      server = await startChildServer(_env(dataDir));
      const retried = await _untilFree(() => _get(server!.url, header));
      expect(retried.status).toBe(retryStatus);
      if (retryStatus === 200) {
        expect(retried.body.node.locked_layers).toEqual([]);
        expect(retried.headers.get("payment-response")).toBeTruthy();
      } else {
        expect(retried.body.code).toBe("read_payment_required");
        expect(retried.body.node).toBeUndefined();
      }
      // Sent once more: never a second read, never a second settlement.
      const replay = await _get(server.url, header);
      expect(replay.status).toBe(402);
      expect(replay.body.node).toBeUndefined();
      expect(_settlementsOf(wallet)).toHaveLength(1);
    } finally {
      facilitator.mode = "ok";
      await doomed.kill("SIGKILL");
      await server?.kill();
    }
  });
});

// --- Internal helpers ---

function _env(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    DIST_DIR: dist,
    LOG_LEVEL: "warn",
    // A short lease and settle timeout, so the retry after the restart does not wait long.
    PAYMENT_TIMEOUT_MS: "1000",
    ...x402Env(facilitator),
  };
}

function _settlementsOf(wallet: Wallet) {
  return facilitator.chain.transfers.filter((t) => t.from === wallet.address.toLowerCase());
}

function _decode(header: string) {
  return JSON.parse(Buffer.from(header, "base64").toString("utf8"));
}

async function _get(url: string, payment?: string): Promise<Reply> {
  const res = await fetch(url + PAID, { headers: payment ? { "payment-signature": payment } : {} });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Retries while the dead server's lease still holds the payment (409 in progress). */
async function _untilFree(send: () => Promise<Reply>): Promise<Reply> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const reply = await send();
    if (reply.status !== 409 || reply.body?.code !== "payment_in_progress" || Date.now() > deadline) return reply;
    await new Promise((r) => setTimeout(r, 300));
  }
}
