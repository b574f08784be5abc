/**
 * x402 per read: a caller with a wallet and nothing else pays for one read of gated content
 * (a node's layers, a rule evaluation) instead of holding a key. The free view stays the default:
 * the caller asks to pay with `pay=x402` on the URL (the locked view's unlock hint and the OpenAPI
 * description give that URL), or, over MCP, `pay: "x402"` or `_meta["x402/payment"]` in the call.
 * Without a payment the answer is 402 `read_payment_required`: v2 PAYMENT-REQUIRED header, v1
 * `accepts` in the body, for the catalogue's per-use price in the network's USD stablecoin.
 *
 * Settled synchronously, before anything is served: one facilitator `/verify` and one `/settle`
 * per read, no batching (so no unsettled read can cost us anything). Exactly once rests on the
 * payment's identity built for checkout (`x402PaymentId`: the EIP-3009 authorization's chain id,
 * token, payer and nonce, whichever x402 version wraps it):
 * - a lease on that identity (insert-once, expiring) admits one request at a time: concurrent
 *   duplicates and v1/v2 twins get 409 `payment_in_progress`, never a second read;
 * - a durable record, written before `/settle` is called (`settling`: the payment and OUR
 *   requirements, to settle again), becomes `served` once settle succeeded; a served payment sent
 *   again is 402 (nonce used), another signature over the same authorization too;
 * - a settle that fails or hangs (502, outcome unknown) serves nothing and leaves the record
 *   `settling`: the same payment sent again asks settle again (the nonce settles once on chain),
 *   and "nonce used" then counts as paid, since our own earlier attempt may have used it; a settle
 *   the facilitator refuses removes the record (nothing moved) and answers 402.
 * A request that ends before its charge (a HEAD, a 304, facts a rule set does not declare) settles
 * nothing; its lease expires after PAYMENT_TIMEOUT_MS × 2 + 5 s and the payment can be sent again.
 */
import { randomUUID } from "node:crypto";
import { decodePaymentResponseHeader } from "@x402/core/http";
import type { Network } from "@x402/core/types";
import { apiError } from "../../../../shared/errors.ts";
import { failpoint } from "../../../../shared/failpoint.ts";
import { publicBaseUrl } from "../../../../shared/http/public-base.ts";
import { limitsInForce } from "../../../../state/releases/build-ref.ts";
import type { DomainDeps } from "../../../domain-deps.ts";
import { digestOf } from "../../purchases/checkout-order.ts";
import { formatUsdExact } from "../../purchases/usd-decimal.ts";
import type { PerUse, PerUseGrant, PresentedPayment } from "../payment-method.ts";
import { presentedX402Payment, x402PaymentId, x402PaymentSecret, x402PaymentToken } from "./checkout-http402.ts";
import { readResource } from "./x402-read-resource.ts";
import { createX402ReadStore } from "./x402-read-store.ts";
import { type DecodedPayment, encodeRequiredHeader, encodeResponseHeader, mismatchReason, type Requirements } from "./x402-requirements.ts";
import { settleOnce } from "./x402-settle-outcome.ts";

/** The MCP `_meta` keys of the x402 project's MCP transport. */
export const MCP_PAYMENT_META = "x402/payment";
const MCP_PAYMENT_RESPONSE_META = "x402/payment-response";

const NONCE_USED = "invalid_exact_evm_payload_authorization_nonce_used";

export const x402PerUse: PerUse = {
  presented({ headers, url, meta }) {
    if (url.searchParams.get("pay") !== "x402") return null;
    const fromMeta = meta?.[MCP_PAYMENT_META];
    if (fromMeta !== undefined && fromMeta !== null) {
      const version = (fromMeta as { x402Version?: unknown }).x402Version === 1 ? 1 : 2;
      return `${version}:${Buffer.from(JSON.stringify(fromMeta)).toString("base64")}`;
    }
    return x402PaymentToken(headers) ?? "";
  },
  authorize: authorizeX402Read,
  describe(deps) {
    const x402 = deps.payments.x402;
    if (!x402) return null;
    return {
      method: "http402",
      price_usd: formatUsdExact(limitsInForce(deps).per_use_price_usd_micros).slice(1),
      how: 'add pay=x402 to a node\'s URL (GET /api/demo?vertical=…&node=…&pay=x402) or to POST /api/evaluate?pay=x402: 402 with the x402 requirements, pay, send the same request again with PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1); over MCP, get_node or evaluate_rules with pay: "x402", then the payment in _meta["x402/payment"]',
      reads: ["GET /api/demo (a node)", "POST /api/evaluate", "MCP get_node, evaluate_rules"],
      details: { scheme: "exact", network: x402.network.v2, asset: x402.asset, pay_to: x402.payTo, facilitator_calls_per_read: 2 },
    };
  },
  openapi: {
    description:
      "**Pay per read with x402** (when the server offers http402, see `/api/status`): add `pay=x402` to read a gated node without a key. Without a payment the answer is 402 `read_payment_required` with the x402 requirements for this one read at the per-use price (catalogue `per_use_price_usd_micros`, $0.002) in the network's USD stablecoin: v2 in the `PAYMENT-REQUIRED` header (with the resource description and `extensions.bazaar`), v1 `accepts` in the body. Send the same request again with `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1), e.g. through `@x402/fetch`: the payment is verified and settled with the facilitator before the answer is sent, which carries `PAYMENT-RESPONSE` (v2) or `X-PAYMENT-RESPONSE` (v1). One payment (one EIP-3009 authorization, however wrapped) is one read: sent again, 402 (nonce used); while it is being settled, 409 `payment_in_progress`. A payment for another amount, network, asset or recipient, or expired, is 402 with fresh requirements and nothing is served; a facilitator that fails or does not answer is 502 `payment_gateway_error`, nothing served, and the same payment sent again settles it once. The index layer and fully open verticals never ask for payment.",
    query: [{ name: "pay", description: "`x402`: pay for this read with x402 instead of getting the free view", values: ["x402"] }],
    headers: [
      { name: "PAYMENT-SIGNATURE", description: "x402 v2 payment payload, base64 JSON (with pay=x402)" },
      { name: "X-PAYMENT", description: "x402 v1 payment payload, base64 JSON (with pay=x402)" },
    ],
    responseHeaders: {
      200: ["PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE"],
      402: ["PAYMENT-REQUIRED", "PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE"],
    },
  },
  mcpResult(headers) {
    const header = headers["payment-response"] ?? headers["x-payment-response"];
    if (!header) return {};
    try {
      return { [MCP_PAYMENT_RESPONSE_META]: decodePaymentResponseHeader(header) };
    } catch {
      return {};
    }
  },
};

async function authorizeX402Read(deps: DomainDeps, presented: PresentedPayment, now: number): Promise<PerUseGrant> {
  const x402 = deps.payments.x402;
  if (!x402)
    throw apiError("per_use_not_accepted", {
      detail: "This deployment takes no x402 payments, so pay=x402 cannot pay for a read; use a key or a per-use pay token.",
    });
  const price = limitsInForce(deps).per_use_price_usd_micros;
  const resource = readResource(presented.resource);
  const requirements = await x402.requirements(price, {
    url: `${publicBaseUrl(deps)}${presented.resource}`,
    description: `${resource.description} (${formatUsdExact(price)}, one read)`,
    extensions: resource.extensions,
    outputSchema: resource.outputSchema,
  });
  const refuse = (reason: string, headers: Record<string, string> = {}, v2Reason = reason) =>
    apiError("read_payment_required", {
      detail: `Pay ${formatUsdExact(price)} with x402 for this read (${v2Reason === reason ? reason : `${v2Reason}; ${reason} in x402 v1`}).`,
      headers: { "payment-required": encodeRequiredHeader(requirements, v2Reason), ...headers },
      extra: {
        x402Version: 1,
        error: reason,
        accepts: [requirements.v1],
        payment_required: { ...requirements.paymentRequired, error: v2Reason },
      },
    });
  if (presented.token === "") throw refuse("X-PAYMENT header is required", {}, "PAYMENT-SIGNATURE header is required");
  const payment = presentedX402Payment(presented.token)!;
  const id = digestOf("x402-read", await x402PaymentId(x402, payment));
  const signature = digestOf("x402-signature", x402PaymentSecret(payment));
  const store = createX402ReadStore(deps.backend);
  const holder = randomUUID();
  if (!(await store.lease(id, holder, now + 2 * deps.config.payments.timeoutMs + 5_000, now)))
    throw apiError("payment_in_progress", { detail: "This payment is paying for a read right now; one payment pays for one read." });
  const release = () => store.unlease(id, holder).catch(() => false);
  try {
    const record = await store.get(id);
    if (record && (record.state === "served" || record.signature !== signature)) throw refuse(NONCE_USED);
    const settleAgain = record?.state === "settling" && record.payment && record.requirements ? record : null;
    if (!settleAgain) {
      // Checked against OUR requirements, never the client's copy; verify consumes nothing.
      let reason = mismatchReason(payment, requirements, x402.acceptedMatches(payment, requirements));
      if (reason === null) {
        const verified = await x402.verify(payment, requirements);
        if (!verified.isValid) reason = verified.invalidReason ?? "invalid_payment";
      }
      if (reason !== null) throw refuse(reason);
    }
    const responseHeader = payment.version === 2 ? "payment-response" : "x-payment-response";
    const toSettle = { payment: settleAgain?.payment ?? payment, requirements: settleAgain?.requirements ?? requirements };
    return {
      charge: async (chargeDeps) => {
        try {
          return await _settle(chargeDeps, id, signature, toSettle, settleAgain !== null, responseHeader, refuse);
        } finally {
          await release();
        }
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

/** Record, settle, mark served: the answer's payment header, or a throw (nothing is served). */
async function _settle(
  deps: DomainDeps,
  id: string,
  signature: string,
  { payment, requirements }: { payment: DecodedPayment; requirements: Requirements },
  attemptedBefore: boolean,
  responseHeader: string,
  refuse: (reason: string, headers?: Record<string, string>) => Error,
): Promise<Record<string, string>> {
  const store = createX402ReadStore(deps.backend);
  // Durable before the one irreversible call: a lost answer leaves it, and the retry settles again.
  if (!attemptedBefore) await store.recordSettling(id, signature, payment, requirements);
  failpoint(deps.config, "perread:recorded");
  const outcome = await settleOnce(deps.payments.x402!, payment, requirements, attemptedBefore);
  failpoint(deps.config, "perread:settled");
  if (!outcome.paid) {
    if (outcome.expiredAfterAttempt)
      deps.logger.error("x402 per-read authorization expired after a settle attempt whose outcome was lost; check the chain", {
        payer: payment.authorization.from.toLowerCase(),
        reason: outcome.failure.errorReason,
      });
    // Refused: nothing moved, so the authorization is the payer's again.
    await store.remove(id);
    throw refuse(outcome.failure.errorReason, { [responseHeader]: encodeResponseHeader(outcome.failure) });
  }
  if (outcome.transaction === null)
    deps.logger.warn("x402 per-read settled by an interrupted attempt (nonce used); transaction not reported", {
      payer: payment.authorization.from.toLowerCase(),
    });
  const transaction = outcome.transaction ?? "";
  await store.recordServed(id, signature, transaction);
  failpoint(deps.config, "perread:served");
  deps.logger.info("x402 per-read settled", { payer: payment.authorization.from.toLowerCase(), transaction });
  const receipt = { success: true, transaction, network: payment.network as Network, payer: payment.authorization.from };
  return { [responseHeader]: encodeResponseHeader(receipt) };
}
