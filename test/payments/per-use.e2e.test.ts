/** GET /api/demo with a per-use KYAPay token: verification, $0.002 per content node, the ledger under concurrency. */

import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, type TestService } from "../helpers/test-service.ts";
import { rpc } from "../mcp/_setup.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "./stand-ins/agent-network.ts";
import { startPaymentsService } from "./start-payments-service.ts";

let network: AgentNetworkStandIn;
let svc: TestService;
beforeAll(async () => {
  network = await startAgentNetwork();
  // Each retrieval waits for its own charge here (the batched default has its own suites).
  svc = await startPaymentsService({ ...agentNetworkEnv(network), PER_USE_CHARGE_BATCH_MS: "0" });
});
afterAll(async () => {
  await svc?.close();
  await network?.close();
});

const demo = (query: string, token?: string) =>
  svc.request(`/api/demo?${query}`, { headers: token === undefined ? {} : { "pay-network-pay-id": token } });
const mint = (options: Parameters<AgentNetworkStandIn["mint"]>[0] = {}) => network.mint({ now: svc.clock.now(), ...options });
const chargesOf = async (token: string) => {
  const jti = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).jti;
  return network.charges.filter((c) => c.jti === jti);
};

describe("per-use token on GET /api/demo", () => {
  it("a valid pay token unlocks a gated node and is charged exactly $0.002", async () => {
    const token = await mint({ valueMicros: 10_000 });
    const res = await demo("vertical=travel&node=trv-m7", token);
    expect(res.status).toBe(200);
    expect(res.body.node.locked_layers).toEqual([]);
    expect(res.headers.get("pay-network-charged")).toBe("0.002000");
    expect(res.headers.get("pay-network-remaining")).toBe("0.008000");
    expect(await chargesOf(token)).toEqual([{ jti: expect.any(String), micros: 2000 }]);
    // The token never reaches the logs.
    expect(svc.logs.join("\n")).not.toContain(token);
  });

  it("index requests and fully open verticals are free: no verification, no charge", async () => {
    const token = await mint();
    expect((await demo("vertical=travel", token)).status).toBe(200);
    expect((await demo("vertical=a2a-handoff&node=a2a-one", token)).status).toBe(200);
    expect(await chargesOf(token)).toEqual([]);
  });

  it("both claim generations and any typ case are accepted", async () => {
    for (const token of [
      await mint({ draftNames: true, typ: "pay+jwt" }),
      await mint({ typ: "PAY+JWT" }),
      await mint({ typ: "kya+pay+jwt" }),
    ]) {
      expect((await demo("vertical=travel&node=trv-m2", token)).status).toBe(200);
    }
  });

  it("a key wins when a pay token is sent beside it: the key is metered, the token never charged", async () => {
    const issued = await svc.request("/api/keys", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      json: { vertical: "travel" },
    });
    const key = issued.body.keys[0].key as string;
    const token = await mint();
    const res = await svc.request("/api/demo?vertical=travel&node=trv-m4", {
      headers: { "x-service-key": key, "pay-network-pay-id": token },
    });
    expect(res.status).toBe(200);
    expect(res.body.node.locked_layers).toEqual([]);
    expect(res.headers.get("ratelimit")).toMatch(/^"hour";r=199;/);
    expect(res.headers.get("pay-network-charged")).toBeNull();
    expect(await chargesOf(token)).toEqual([]);
  });

  it("a 304 is not charged", async () => {
    const token = await mint();
    const first = await demo("vertical=travel&node=trv-m3", token);
    const again = await svc.request("/api/demo?vertical=travel&node=trv-m3", {
      headers: { "pay-network-pay-id": token, "if-none-match": first.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
    expect(await chargesOf(token)).toHaveLength(1);
  });

  it.each([
    ["garbage", async () => "not-a-jwt", "payment_token_invalid"],
    ["unknown kid", async () => mint({ kid: "other" }), "payment_token_invalid"],
    ["wrong issuer", async () => mint({ claims: { iss: "https://evil.example" } }), "payment_token_invalid"],
    ["wrong audience", async () => mint({ claims: { aud: "someone-else" } }), "payment_token_invalid"],
    ["wrong service id", async () => mint({ claims: { ssi: "other-service" } }), "payment_token_invalid"],
    ["expired", async () => mint({ expiresIn: -120 }), "payment_token_expired"],
    ["iat in the future", async () => mint({ claims: { iat: Math.floor(svc.clock.now() / 1000) + 600 } }), "payment_token_invalid"],
    ["jti not a UUID", async () => mint({ claims: { jti: "abc" } }), "payment_token_invalid"],
    ["sandbox token", async () => mint({ claims: { env: "sandbox" } }), "payment_token_invalid"],
    ["kya only", async () => mint({ typ: "kya+jwt" }), "payment_token_required"],
    ["zero value", async () => mint({ valueMicros: 0 }), "payment_token_invalid"],
    ["EUR", async () => mint({ claims: { cur: "EUR" } }), "payment_token_invalid"],
    ["signed by another key", async () => network.mintForeign({ now: svc.clock.now() }), "payment_token_invalid"],
    [
      "alg none",
      async () =>
        `${Buffer.from(JSON.stringify({ alg: "none", typ: "pay+jwt", kid: "network-key-1" })).toString("base64url")}.${Buffer.from(JSON.stringify({ iss: "https://network.example" })).toString("base64url")}.`,
      "payment_token_invalid",
    ],
    [
      "HS256 with the public key as secret",
      async () =>
        new SignJWT({ jti: crypto.randomUUID() })
          .setProtectedHeader({ alg: "HS256", typ: "pay+jwt", kid: "network-key-1" })
          .sign(new TextEncoder().encode(JSON.stringify(network.jwks.keys[0]))),
      "payment_token_invalid",
    ],
  ])("402 and no charge: %s", async (_name, make, code) => {
    const before = network.charges.length;
    const res = await demo("vertical=travel&node=trv-m4", await make());
    expect(res.status).toBe(402);
    expect(res.body.code).toBe(code);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body.unlock.per_use.header).toBe("pay-network-pay-id");
    expect(network.charges.length).toBe(before);
  });

  it("a token worth $0.005 serves 2 node requests, then 402 depleted; mnr caps the count too", async () => {
    const token = await mint({ valueMicros: 5000 });
    expect((await demo("vertical=travel&node=trv-m1", token)).status).toBe(200);
    expect((await demo("vertical=travel&node=trv-m2", token)).status).toBe(200);
    const third = await demo("vertical=travel&node=trv-m3", token);
    expect(third.status).toBe(402);
    expect(third.body.code).toBe("payment_token_depleted");
    const capped = await mint({ valueMicros: 100_000, claims: { mnr: "1" } });
    expect((await demo("vertical=travel&node=trv-m1", capped)).status).toBe(200);
    expect((await demo("vertical=travel&node=trv-m1", capped)).body.code).toBe("payment_token_depleted");
  });

  it("20 concurrent requests on a token worth 5 retrievals: exactly 5 served, 15 × 402, $0.01 charged", async () => {
    const token = await mint({ valueMicros: 10_000 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => demo(`vertical=travel&node=trv-m${(i % 5) + 1}`, token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 402 && r.body.code === "payment_token_depleted")).toHaveLength(15);
    const charges = await chargesOf(token);
    expect(charges).toHaveLength(5);
    expect(charges.reduce((sum, c) => sum + c.micros, 0)).toBe(10_000);
  });

  it("a refused charge is 402 and serves nothing; a broken network is 502", async () => {
    network.mode = 402;
    try {
      const res = await demo("vertical=travel&node=trv-m1", await mint());
      expect(res.status).toBe(402);
      expect(res.body.code).toBe("payment_failed");
      expect(res.body).not.toHaveProperty("node");
      network.mode = 500;
      expect((await demo("vertical=travel&node=trv-m1", await mint())).status).toBe(502);
    } finally {
      network.mode = "ok";
    }
  });

  it("MCP get_node takes the same per-use path: content with a pay token, one charge; a kya token is an isError result", async () => {
    const token = await mint();
    const res = await rpc(
      svc,
      "tools/call",
      { name: "get_node", arguments: { vertical: "travel", node: "trv-m6" } },
      { "pay-network-pay-id": token },
    );
    expect(res.result.isError).toBeFalsy();
    expect(JSON.parse(res.result.content[0].text).node.locked_layers).toEqual([]);
    expect(await chargesOf(token)).toHaveLength(1);
    const kya = await rpc(
      svc,
      "tools/call",
      { name: "get_node", arguments: { vertical: "travel", node: "trv-m6" } },
      { "pay-network-pay-id": await mint({ typ: "kya+jwt" }) },
    );
    expect(kya.result.isError).toBe(true);
    expect(kya.result.content[0].text).toContain("payment_token_required");
  });

  it("the expiry is checked on every request even with the signature cached", async () => {
    const token = await mint({ expiresIn: 90 });
    expect((await demo("vertical=travel&node=trv-m1", token)).status).toBe(200);
    svc.clock.advance(200_000);
    const later = await demo("vertical=travel&node=trv-m1", token);
    expect(later.status).toBe(402);
    expect(later.body.code).toBe("payment_token_expired");
  });
});
