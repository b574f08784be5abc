/**
 * x402 settlement through a facilitator: `POST /verify` and `POST /settle`, both taking
 * `{ x402Version, paymentPayload, paymentRequirements }`. The requirements sent are always the
 * ones we computed, never the client's copy. Facilitator answers are untrusted and shape-checked.
 */
import { apiError } from "../../errors.ts";
import type { PaymentsConfig } from "../../config.ts";
import { postJson } from "./fetch-json.ts";

export interface FacilitatorRequest {
  x402Version: 1 | 2;
  paymentPayload: unknown;
  paymentRequirements: unknown;
}

export interface VerifyReply {
  isValid: boolean;
  invalidReason: string | null;
  payer: string | null;
}

export interface SettleReply {
  success: boolean;
  errorReason: string | null;
  payer: string | null;
  transaction: string;
  network: string;
}

export interface X402Facilitator {
  readonly name: "http402";
  verify(request: FacilitatorRequest): Promise<VerifyReply>;
  settle(request: FacilitatorRequest): Promise<SettleReply>;
}

export function createX402Facilitator(config: NonNullable<PaymentsConfig["x402"]>, options: { timeoutMs: number }): X402Facilitator {
  const call = async (path: string, request: FacilitatorRequest) => {
    const reply = await postJson(`${config.facilitatorUrl}${path}`, request, { timeoutMs: options.timeoutMs, provider: "The x402 facilitator" });
    if (!reply.body || typeof reply.body !== "object") throw apiError("payment_gateway_error", { detail: `The x402 facilitator's ${path} answer (${reply.status}) is not JSON; nothing was issued.` });
    return reply.body as Record<string, unknown>;
  };
  const text = (value: unknown) => (typeof value === "string" ? value.slice(0, 200) : null);
  return {
    name: "http402",
    async verify(request) {
      const body = await call("/verify", request);
      return { isValid: body.isValid === true, invalidReason: text(body.invalidReason), payer: text(body.payer) };
    },
    async settle(request) {
      const body = await call("/settle", request);
      return { success: body.success === true, errorReason: text(body.errorReason), payer: text(body.payer), transaction: text(body.transaction) ?? "", network: text(body.network) ?? "" };
    },
  };
}
