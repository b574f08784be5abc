/**
 * x402 per read under a burst: hundreds of concurrent requests carrying one payment (the same
 * header, its v1 twin and a re-encoded v2 wrapping of the same authorization, mixed) yield one read
 * and one settlement; every other answer is 402 or 409 with no content. With the state in SQLite
 * (one in-process server), then on Redis (127.0.0.1:6379) with two instances sharing it, the burst
 * split across both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deletePrefix, SHARED_REDIS_URL, startInstances, uniquePrefix } from "../cluster/_cluster.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import type { ChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService } from "../helpers/test-service.ts";
import { type FacilitatorStandIn, payWith, startFacilitator, twinsOf, x402Env } from "./stand-ins/x402-facilitator.ts";

const PAID = "/api/demo?vertical=travel&node=trv-m7&pay=x402";
const BURST = 240;

let facilitator: FacilitatorStandIn;
let dist: string;
beforeAll(async () => {
  facilitator = await startFacilitator();
  dist = buildContentTo(writeFixtureContent());
});
afterAll(async () => {
  await facilitator?.close();
});

for (const store of ["SQLite", "Redis, two instances"] as const) {
  describe(`on ${store}`, () => {
    /** Base URLs of the instances; the burst goes round-robin across them. */
    let urls: string[] = [];
    let close = async () => {};
    beforeAll(async () => {
      const env = { ...x402Env(facilitator), PAYMENT_TIMEOUT_MS: "5000", ANON_RATE_PER_MINUTE: "1000000" };
      if (store === "SQLite") {
        const svc = await startTestService(dist, env);
        urls = [svc.url];
        close = () => svc.close();
        return;
      }
      const prefix = uniquePrefix();
      const instances: ChildServer[] = await startInstances(2, {
        DIST_DIR: dist,
        REDIS_URL: SHARED_REDIS_URL,
        REDIS_PREFIX: prefix,
        ...env,
      });
      urls = instances.map((i) => i.url);
      close = async () => {
        await Promise.all(instances.map((i) => i.kill("SIGTERM")));
        await deletePrefix(SHARED_REDIS_URL, prefix);
      };
    }, 120_000);
    afterAll(() => close());

    it(`${BURST} concurrent requests with one payment (same header, v1 twin, re-encoded v2 mixed): one read, one settlement`, async () => {
      const wallet = facilitator.wallet();
      const required = await fetch(urls[0] + PAID);
      expect(required.status).toBe(402);
      const requirement = JSON.parse(Buffer.from(required.headers.get("payment-required")!, "base64").toString("utf8")).accepts[0];
      const v2 = await payWith(wallet, 2, requirement);
      const variants = [{ "payment-signature": v2 }, ...twinsOf(v2)];
      const settlesBefore = facilitator.calls.filter((c) => c.path === "/settle").length;
      const answers = await Promise.all(
        Array.from({ length: BURST }, async (_, i) => {
          const res = await fetch(urls[i % urls.length] + PAID, { headers: variants[i % variants.length] });
          const body = (await res.json()) as { code?: string; node?: unknown };
          return { status: res.status, code: body.code, content: body.node !== undefined };
        }),
      );
      const served = answers.filter((a) => a.status === 200);
      expect(served).toHaveLength(1);
      expect(served[0]!.content).toBe(true);
      const refused = answers.filter((a) => a.status !== 200);
      expect(refused.filter((a) => a.content)).toEqual([]);
      expect(new Set(refused.map((a) => `${a.status} ${a.code}`))).toEqual(
        new Set(refused.map((a) => (a.status === 409 ? "409 payment_in_progress" : "402 read_payment_required"))),
      );
      expect(refused.every((a) => a.status === 402 || a.status === 409)).toBe(true);
      expect(facilitator.chain.transfers.filter((t) => t.from === wallet.address.toLowerCase())).toHaveLength(1);
      expect(facilitator.calls.filter((c) => c.path === "/settle").length - settlesBefore).toBe(1);
    }, 120_000);
  });
}
