/**
 * The payment methods' registry against the schemas built from the method ids: every method is
 * registered once, in the ids' order, and what `GET /api/checkout` says a method answers on
 * success (`success_status`) is the success response whose `payment_method` accepts it.
 */
import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import type { AppDeps } from "../../runtime/deps.ts";
import { PAYMENT_METHOD_IDS } from "../../runtime/domain/payments/methods/method-ids.ts";
import { PAYMENT_METHOD_REGISTRY } from "../../runtime/domain/payments/methods/registry.ts";
import { CheckoutKeysSchema, CheckoutRequestSchema, CheckoutSessionSchema } from "../../runtime/domain/payments/payment-schemas.ts";

// describe() reads only whether each provider is configured.
const UNCONFIGURED = { payments: { card: null, agentNetwork: null, x402: null }, config: { publicBaseUrl: null } } as unknown as AppDeps;
const keysMethod = CheckoutKeysSchema.properties.receipt.properties.payment_method;
const sessionMethod = CheckoutSessionSchema.properties.payment_method;

describe("payment method registry", () => {
  it("registers every method id once, in the ids' order, and the request schema accepts exactly those", () => {
    expect(PAYMENT_METHOD_REGISTRY.map((m) => m.id)).toEqual([...PAYMENT_METHOD_IDS]);
    for (const id of PAYMENT_METHOD_IDS) expect(Value.Check(CheckoutRequestSchema.properties.payment_method, id)).toBe(true);
    expect(Value.Check(CheckoutRequestSchema.properties.payment_method, "admin")).toBe(false);
  });

  it.each(PAYMENT_METHOD_REGISTRY.map((m) => [m.id, m] as const))(
    "%s: its described success status is the one of the success response that names it",
    (id, method) => {
      const described = method.describe(UNCONFIGURED);
      expect(described.id).toBe(id);
      expect(described.available).toBe(false);
      const answersKeys = Value.Check(keysMethod, id);
      const answersSession = Value.Check(sessionMethod, id);
      expect(answersKeys).not.toBe(answersSession);
      expect(described.success_status).toBe(answersKeys ? 201 : 303);
    },
  );

  it("the success responses name the methods the API has always named there", () => {
    expect(PAYMENT_METHOD_IDS.filter((id) => Value.Check(keysMethod, id))).toEqual(["agent_network", "http402"]);
    expect(PAYMENT_METHOD_IDS.filter((id) => Value.Check(sessionMethod, id))).toEqual(["card"]);
  });
});
