/**
 * agent_network's per-use capability: a KYAPay pay or kya-pay token in `pay-network-pay-id`
 * instead of a key. The work is in `payments/per-use/` (the token ledger it shares with checkout,
 * the batched charges); this is how the read path reaches it through the registry.
 */
import { limitsInForce } from "../../../../state/releases/build-ref.ts";
import { authorizePerUse, chargePerUse } from "../../per-use/per-use.ts";
import { formatUsdExact } from "../../purchases/usd-decimal.ts";
import type { PerUse } from "../payment-method.ts";

export const agentNetworkPerUse: PerUse = {
  presented: ({ headers }) => {
    const token = headers.get("pay-network-pay-id");
    return token === null || token === "" ? null : token;
  },
  async authorize(deps, payment, now) {
    const authorization = await authorizePerUse(deps, payment.token, now);
    return { charge: (d, at) => chargePerUse(d, authorization, at) };
  },
  describe: (deps) =>
    deps.payments.agentNetwork
      ? {
          method: "agent_network",
          price_usd: formatUsdExact(limitsInForce(deps).per_use_price_usd_micros).slice(1),
          how: "a KYAPay pay or kya-pay token in the pay-network-pay-id header, on any read",
          reads: ["GET /api/demo (a node)", "POST /api/evaluate", "search over gated layers", "MCP get_node, evaluate_rules, search"],
        }
      : null,
  // Described in the reads' own text and as the `payToken` security scheme, where it came first.
  openapi: { description: "" },
};
