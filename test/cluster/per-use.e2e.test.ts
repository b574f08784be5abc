/**
 * A per-use payment token worth 5 retrievals, spent from three instances on one Redis at
 * once, serves exactly 5 content nodes and is charged exactly 5 times (the token ledger is one
 * atomic counter, shared through Redis).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import type { ChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "../payments/stand-ins/agent-network.ts";
import { deletePrefix, SHARED_REDIS_URL, startInstances, uniquePrefix } from "./_cluster.ts";

const prefix = uniquePrefix();
let network: AgentNetworkStandIn;
let instances: ChildServer[] = [];

beforeAll(async () => {
  network = await startAgentNetwork();
  instances = await startInstances(3, {
    DIST_DIR: buildContentTo(writeFixtureContent()),
    REDIS_URL: SHARED_REDIS_URL,
    REDIS_PREFIX: prefix,
    ...agentNetworkEnv(network),
  });
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.kill("SIGTERM")));
  await network?.close();
  await deletePrefix(SHARED_REDIS_URL, prefix);
});

describe("per-use token across three instances", () => {
  it("a token worth 5 retrievals spent from three instances at once serves exactly 5", async () => {
    const token = await network.mint({ valueMicros: 5 * 2000 });
    const results = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const res = await fetch(`${instances[i % 3]!.url}/api/demo?vertical=travel&node=trv-m${(i % 7) + 1}`, {
          headers: { "pay-network-pay-id": token },
        });
        const body = (await res.json()) as { code?: string };
        return res.status === 200 ? "served" : `${res.status} ${body.code}`;
      }),
    );
    const tally = results.reduce<Record<string, number>>((t, r) => ({ ...t, [r]: (t[r] ?? 0) + 1 }), {});
    expect(tally).toEqual({ served: 5, "402 payment_token_depleted": 25 });
    const jti = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).jti;
    // Charges go out in batches (the default): each instance sends its share within an interval.
    const charged = () => network.charges.filter((c) => c.jti === jti).reduce((sum, c) => sum + c.micros, 0);
    for (let i = 0; i < 50 && charged() < 5 * 2000; i++) await new Promise((r) => setTimeout(r, 100));
    expect(charged()).toBe(5 * 2000);
    expect(network.charges.filter((c) => c.jti === jti).length).toBeLessThanOrEqual(3);
  });
});
