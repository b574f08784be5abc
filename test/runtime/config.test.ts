/**
 * Configuration that refuses half a feature: a payment method, key mail or Redis configured only
 * in part stops the start with a message naming what is set and what is missing, instead of
 * quietly switching the method off; whole features and none at all start. The config is frozen
 * all the way down.
 */
import { describe, expect, it } from "vitest";
import { ConfigError, resolveRuntimeConfig } from "../../runtime/config.ts";
import { PAYMENT_METHOD_IDS, PAYMENT_METHOD_TRAITS } from "../../runtime/domain/payments/methods/method-ids.ts";

const NETWORK = {
  PAY_NETWORK_JWKS_URL: "https://network.example/.well-known/jwks.json",
  PAY_NETWORK_ISSUER: "https://network.example",
  PAY_NETWORK_SELLER_ID: "seller",
  PAY_NETWORK_SERVICE_ID: "service",
  PAY_NETWORK_API_URL: "https://api.network.example",
  PAY_NETWORK_API_KEY: "key",
};
const X402 = {
  X402_FACILITATOR_URL: "https://facilitator.example",
  X402_PAY_TO: "0x0000000000000000000000000000000000000001",
  X402_NETWORK: "base-sepolia",
  X402_ASSET: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
};
const STRIPE = { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: "whsec_x" };

function refusal(env: Record<string, string>): string {
  try {
    resolveRuntimeConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("the configuration was accepted");
}

describe("half a feature is refused at start, naming what is missing", () => {
  it.each(Object.keys(NETWORK))("agent_network without %s", (name) => {
    const env: Record<string, string> = { ...NETWORK };
    delete env[name];
    const message = refusal(env);
    expect(message).toContain("agent_network");
    expect(message).toContain(name === "PAY_NETWORK_JWKS_URL" ? "PAY_NETWORK_JWKS_URL or PAY_NETWORK_JWKS" : name);
  });

  it.each(["X402_PAY_TO", "X402_NETWORK"])("x402 without %s", (name) => {
    const env: Record<string, string> = { ...X402 };
    delete env[name];
    expect(refusal(env)).toMatch(new RegExp(`x402 payments is configured only in part: .* but ${name} is missing`));
  });

  it("x402 without a facilitator: neither its URL nor Coinbase's keys (X402_ASSET is optional: the network's own token)", () => {
    const env: Record<string, string> = { ...X402 };
    delete env.X402_FACILITATOR_URL;
    expect(refusal(env)).toMatch(/x402 payments is configured only in part: .* but X402_FACILITATOR_URL or CDP_API_KEY_ID is missing/);
    delete env.X402_ASSET;
    expect(resolveRuntimeConfig({ ...env, X402_FACILITATOR_URL: X402.X402_FACILITATOR_URL }).payments.methods.http402).toBeDefined();
  });

  it("Stripe with one of its two secrets, or only a success URL", () => {
    expect(refusal({ STRIPE_SECRET_KEY: "sk_test_x" })).toContain("STRIPE_WEBHOOK_SECRET is missing");
    expect(refusal({ STRIPE_SUCCESS_URL: "https://shop.example/done" })).toContain("STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET are missing");
  });

  it("SMTP_FROM without SMTP_URL, a relay token without the relay, a Redis prefix without Redis", () => {
    expect(refusal({ SMTP_FROM: "keys@example.com" })).toContain("SMTP_URL is missing");
    expect(refusal({ KEY_DELIVERY_TOKEN: "t" })).toContain("KEY_DELIVERY_URL is missing");
    expect(refusal({ REDIS_PREFIX: "app:" })).toContain(
      "REDIS_URL or RELEASE_REDIS_URL or REDIS_CLUSTER_NODES or REDIS_SENTINELS is missing",
    );
    expect(refusal({ REDIS_SENTINEL_NAME: "primary" })).toContain("REDIS_SENTINELS is missing");
  });

  // The methods' blocks are declared in their folders and looped over by config: each one, a new one
  // included, is refused when only one of its variables is set.
  it.each(PAYMENT_METHOD_IDS)("the %s method's environment block, with only one of its variables set", (id) => {
    const block = PAYMENT_METHOD_TRAITS[id].env;
    const only = block.required[0]![0]!;
    const missing = block.required.slice(1).map((alternatives) => alternatives.join(" or "));
    expect(missing.length).toBeGreaterThan(0);
    expect(refusal({ [only]: "https://set.example" })).toBe(
      `${block.feature} is configured only in part: ${only} is set, but ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} missing`,
    );
  });

  it("every partial feature is named in one message", () => {
    const message = refusal({ STRIPE_SECRET_KEY: "sk", X402_PAY_TO: "0x1" });
    expect(message).toContain("card payments (Stripe)");
    expect(message).toContain("x402 payments");
  });

  it("whole features, or none, start; the inline JWKS stands in for its URL", () => {
    const { PAY_NETWORK_JWKS_URL: _, ...inline } = NETWORK;
    const config = resolveRuntimeConfig({
      ...inline,
      PAY_NETWORK_JWKS: JSON.stringify({ keys: [] }),
      ...X402,
      ...STRIPE,
      SMTP_URL: "smtp://127.0.0.1:2525",
      REDIS_PREFIX: "app:",
      RELEASE_REDIS_URL: "redis://127.0.0.1:6379",
    });
    expect(config.payments.methods.agent_network?.jwks).toEqual({ keys: [] });
    expect(config.payments.methods.http402).toBeDefined();
    expect(config.payments.methods.card).toBeDefined();
    expect(resolveRuntimeConfig({}).payments.methods.card).toBeUndefined();
  });
});

describe("the config is frozen all the way down", () => {
  it("nested settings cannot be changed", () => {
    const config = resolveRuntimeConfig({ ...STRIPE, ...NETWORK });
    expect(Object.isFrozen(config.payments)).toBe(true);
    expect(Object.isFrozen(config.payments.methods.card)).toBe(true);
    expect(Object.isFrozen(config.payments.methods.agent_network!.environments)).toBe(true);
    expect(() => {
      (config.payments as { timeoutMs: number }).timeoutMs = 1;
    }).toThrow(TypeError);
  });
});
