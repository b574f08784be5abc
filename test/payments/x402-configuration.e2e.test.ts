/**
 * x402 configuration as an operator meets it: the facilitator's own auth on every call (a static
 * header, or Coinbase's CDP keys, whose per-request JWTs come from `@coinbase/x402`), and the
 * start-up check of the facilitator's `/supported`: a mainnet without a facilitator that settles
 * there does not start (exit code 2 from the bundled server), a testnet one starts with a warning.
 */
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importJWK, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, resolveRuntimeConfig } from "../../runtime/config.ts";
import { startService } from "../../runtime/start.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { bundleServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { BASE_SEPOLIA_USDC } from "./stand-ins/evm-chain.ts";
import { payWith, startFacilitator, x402Env, type FacilitatorStandIn } from "./stand-ins/x402-facilitator.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

let everywhere: FacilitatorStandIn;
let testnetOnly: FacilitatorStandIn;
let dist: string;
beforeAll(async () => {
  [everywhere, testnetOnly] = await Promise.all([startFacilitator(), startFacilitator({ networks: [BASE_SEPOLIA_USDC] })]);
  dist = buildContentTo(writeFixtureContent());
});
afterAll(async () => {
  await everywhere?.close();
  await testnetOnly?.close();
});

/** Buys one key with a v2 payment and returns the headers of the facilitator calls it made. */
async function buyThrough(env: Record<string, string>) {
  const svc = await startPaymentsService(env);
  try {
    const body = checkoutBody("http402", { agent_id: `auth-${Math.random()}` });
    const required = await svc.request("/api/checkout", { method: "POST", json: body });
    const requirement = JSON.parse(Buffer.from(required.headers.get("payment-required")!, "base64").toString("utf8")).accepts[0];
    const from = everywhere.requestHeaders.length;
    const res = await svc.request("/api/checkout", {
      method: "POST",
      headers: { "payment-signature": await payWith(everywhere.wallet(), 2, requirement) },
      json: body,
    });
    expect(res.status).toBe(201);
    return everywhere.requestHeaders.slice(from);
  } finally {
    await svc.close();
  }
}

describe("facilitator auth", () => {
  it("X402_FACILITATOR_AUTHORIZATION goes on /supported, /verify and /settle", async () => {
    const from = everywhere.requestHeaders.length;
    const calls = await buyThrough({ ...x402Env(everywhere), X402_FACILITATOR_AUTHORIZATION: "Bearer facilitator-secret" });
    const all = everywhere.requestHeaders.slice(from);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(calls.map((h) => h.authorization)).toEqual(["Bearer facilitator-secret", "Bearer facilitator-secret"]);
    expect(all.every((h) => h.authorization === "Bearer facilitator-secret")).toBe(true);
  });

  it("CDP_API_KEY_ID / CDP_API_KEY_SECRET: each call carries a fresh EdDSA JWT for the key, naming the call it authorizes", async () => {
    const { publicKey, privateKey } = generateKeyPairSync("ed25519");
    const jwk = privateKey.export({ format: "jwk" });
    const secret = Buffer.concat([Buffer.from(jwk.d!, "base64url"), Buffer.from(jwk.x!, "base64url")]).toString("base64");
    const calls = await buyThrough({
      ...x402Env(everywhere),
      CDP_API_KEY_ID: "organizations/test/apiKeys/key-1",
      CDP_API_KEY_SECRET: secret,
    });
    const key = await importJWK(publicKey.export({ format: "jwk" }) as never, "EdDSA");
    const uris: string[] = [];
    for (const headers of calls) {
      const token = String(headers.authorization).replace(/^Bearer /, "");
      const { payload, protectedHeader } = await jwtVerify(token, key, { issuer: "cdp" });
      expect(protectedHeader).toMatchObject({ alg: "EdDSA", kid: "organizations/test/apiKeys/key-1" });
      expect(payload.sub).toBe("organizations/test/apiKeys/key-1");
      uris.push(...(payload.uris as string[]));
    }
    expect(uris.map((u) => u.replace(/ .*\//, " /"))).toEqual(["POST /verify", "POST /settle"]);
  });

  it("a CDP key id without its secret is a configuration error", () => {
    expect(() => resolveRuntimeConfig({ ...x402Env(everywhere), CDP_API_KEY_ID: "k" })).toThrow(ConfigError);
  });
});

describe("the facilitator's networks, checked at start", () => {
  const configFor = (env: Record<string, string>) =>
    resolveRuntimeConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: mkdtempSync(join(tmpdir(), "vkr-state-")),
      DIST_DIR: dist,
      LOG_LEVEL: "error",
      ...env,
    });

  it("Base mainnet through a facilitator that settles only on Base Sepolia does not start", async () => {
    await expect(startService(configFor(x402Env(testnetOnly, "base")))).rejects.toThrow(/cannot settle "exact" payments on eip155:8453/);
  });

  it("Base mainnet through a facilitator that does not answer does not start", async () => {
    await expect(
      startService(configFor({ ...x402Env(everywhere, "eip155:8453"), X402_FACILITATOR_URL: "http://127.0.0.1:9/" })),
    ).rejects.toThrow(ConfigError);
  });

  it("X402_ASSET that is not the network's default needs its EIP-712 domain", async () => {
    await expect(startService(configFor({ ...x402Env(everywhere, "base"), X402_ASSET: BASE_SEPOLIA_USDC.address }))).rejects.toThrow(
      /X402_ASSET_NAME and X402_ASSET_VERSION/,
    );
  });

  it("Base Sepolia through a facilitator that does not answer starts with a warning; checkout answers 503 until it does", async () => {
    const svc = await startPaymentsService({ ...x402Env(everywhere), X402_FACILITATOR_URL: "http://127.0.0.1:9/" });
    try {
      expect(svc.logs.join("\n")).toMatch(/x402 facilitator unreachable at start/);
      const res = await svc.request("/api/checkout", { method: "POST", json: checkoutBody("http402") });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe("payment_provider_unavailable");
    } finally {
      await svc.close();
    }
  });

  it("the bundled server exits with code 2 and says why", async () => {
    const env = {
      PATH: process.env.PATH ?? "",
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: mkdtempSync(join(tmpdir(), "vkr-state-")),
      DIST_DIR: dist,
      ...x402Env(testnetOnly, "base"),
    };
    const proc = spawn(process.execPath, [bundleServer()], { env, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    proc.stderr.on("data", (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => proc.on("exit", resolve));
    expect(code).toBe(2);
    expect(err).toMatch(/^config error: .*cannot settle "exact" payments on eip155:8453/m);
  });
});
