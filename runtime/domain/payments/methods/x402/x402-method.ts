/**
 * x402 through a facilitator, as a registered payment method. Its folder holds the checkout
 * (`checkout-http402.ts`), the payment requirements it offers and checks
 * (`x402-requirements.ts`) and the facilitator check at start (`x402-facilitator-check.ts`); the
 * facilitator client is `../../providers/http402.ts`.
 */

import { successStatusOf } from "../method-ids.ts";
import type { PaymentMethod } from "../payment-method.ts";
import { checkoutWithX402, settleRecorded } from "./checkout-http402.ts";
import { checkFacilitator } from "./x402-facilitator-check.ts";
import { x402OpenApi } from "./x402-openapi.ts";
import { x402PerUse } from "./x402-per-read.ts";
import { x402Provider } from "./x402-provider.ts";

export const x402Method: PaymentMethod = {
  id: "http402",
  provider: x402Provider,
  openapi: x402OpenApi,
  perUse: x402PerUse,
  available: (deps) => deps.payments.x402 !== null,
  credentials: (headers) => [headers.get("x-payment") ?? "", headers.get("payment-signature") ?? ""],
  describe: (deps) => {
    const x402 = deps.payments.x402;
    return {
      id: "http402",
      available: x402 !== null,
      description:
        "x402: POST without payment answers 402 with the requirements (v1 body, v2 PAYMENT-REQUIRED header); pay and send X-PAYMENT (v1) or PAYMENT-SIGNATURE (v2). Settled before the keys are issued; 201 with the keys and X-PAYMENT-RESPONSE / PAYMENT-RESPONSE.",
      success_status: successStatusOf("http402"),
      header: "X-PAYMENT",
      ...(x402 ? { details: { scheme: "exact", network: x402.network.v2, asset: x402.asset, pay_to: x402.payTo } } : {}),
    };
  },
  chargeAgain: settleRecorded,
  checkout: (deps, order, account, input, now) =>
    checkoutWithX402(deps, order, account, { headers: input.headers, resourceUrl: `${input.baseUrl}/api/checkout` }, now),
  atStart: async (deps) => {
    if (deps.payments.x402) await checkFacilitator(deps.payments.x402, deps.logger);
  },
  warnings: (deps) =>
    deps.payments.x402 && !deps.config.publicBaseUrl
      ? [
          "PUBLIC_BASE_URL is not set: x402's resource uses the listening address; set it when clients reach this server through another name",
        ]
      : [],
};
