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
import { type FacilitatorStandIn, payWith, startFacilitator, x402Env } from "./stand-ins/x402-facilitator.ts";
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
    const { code, err } = await _startBundled(x402Env(testnetOnly, "base"));
    expect(code).toBe(2);
    expect(err).toMatch(/^config error: .*cannot settle "exact" payments on eip155:8453/m);
  });

  it("a token the network's table knows, given another EIP-712 name or version, does not start (exit 2, naming both)", async () => {
    // Base mainnet USDC's domain is ("USD Coin", "2"); "USDC" is Base Sepolia's name, and signing with it fails on chain.
    const mainnetUsdc = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
    const named = { ...x402Env(everywhere, "base"), X402_ASSET: mainnetUsdc, X402_ASSET_NAME: "USDC", X402_ASSET_VERSION: "2" };
    const { code, err } = await _startBundled(named);
    expect(code).toBe(2);
    expect(err).toMatch(/^config error: .*X402_ASSET_NAME "USDC".*"USD Coin"/m);
    await expect(startService(configFor({ ...named, X402_ASSET_NAME: "USD Coin", X402_ASSET_VERSION: "1" }))).rejects.toThrow(
      /X402_ASSET_VERSION "1".*"2"/,
    );
  });

  it("a token the table knows, with its own name and version, starts", async () => {
    const mainnetUsdc = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
    const svc = await startService(
      configFor({ ...x402Env(everywhere, "base"), X402_ASSET: mainnetUsdc, X402_ASSET_NAME: "USD Coin", X402_ASSET_VERSION: "2" }),
    );
    await svc.close();
  });
});

// --- Internal helpers ---

/** Starts the bundled server with `x402` variables and waits for it to exit. */
async function _startBundled(x402: Record<string, string>): Promise<{ code: number | null; err: string }> {
  const env = {
    PATH: process.env.PATH ?? "",
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: mkdtempSync(join(tmpdir(), "vkr-state-")),
    DIST_DIR: dist,
    ...x402,
  };
  const proc = spawn(process.execPath, [bundleServer()], { env, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  proc.stderr.on("data", (d) => (err += d));
  // A server that starts when it should not is stopped, and reported as still running (no code).
  const running = setTimeout(() => proc.kill("SIGKILL"), 15_000);
  const code = await new Promise<number | null>((resolve) => proc.on("exit", (exit) => resolve(exit)));
  clearTimeout(running);
  return { code, err };
}
