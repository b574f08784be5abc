/** x402's provider: the facilitator's client (verify and settle). */
import type { PaymentsConfig } from "../../../runtime-config.ts";
import { createX402Provider, type X402Provider } from "../../providers/http402.ts";
import type { MethodProvider } from "../../providers/payment-providers.ts";

declare module "../../providers/payment-providers.ts" {
  interface PaymentProviders {
    x402: X402Provider | null;
  }
}

export const x402Provider: MethodProvider = {
  field: "x402",
  create: (config: PaymentsConfig) =>
    config.methods.http402 ? createX402Provider(config.methods.http402, { timeoutMs: config.timeoutMs }) : null,
};
