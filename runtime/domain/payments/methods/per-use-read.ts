/**
 * The read path's door to per-use payment: which method's payment a request presents, and its
 * authorization, looked up in the registry (`registry.ts`) among the methods that offer `perUse`,
 * so `access/` and `metering/` name no method. The first method in the registry's order whose
 * payment the request carries pays; a key, when one is sent too, wins over all of them.
 */
import type { DomainDeps } from "../../domain-deps.ts";
import type { PaymentMethod, PerUse, PerUseGrant, PerUseRequest, PresentedPayment } from "./payment-method.ts";
import { findPaymentMethod, PAYMENT_METHOD_REGISTRY } from "./registry.ts";

/** The methods that pay per read, in the registry's order (read lazily: the registry imports every method). */
export function perUseMethods(): readonly (PaymentMethod & { perUse: PerUse })[] {
  return (cached ??= PAYMENT_METHOD_REGISTRY.filter((m): m is PaymentMethod & { perUse: PerUse } => m.perUse !== undefined));
}

/** The per-use payment the request presents, or null; `resource` is what it would pay for. */
export function presentedPayment(request: PerUseRequest, resource: string, viaMcp = false): PresentedPayment | null {
  for (const method of perUseMethods()) {
    const token = method.perUse.presented(request);
    if (token !== null) return { method: method.id, token, resource, ...(viaMcp ? { viaMcp } : {}) };
  }
  return null;
}

/** Verifies the payment with its method, before any content is revealed. */
export function authorizeRead(deps: DomainDeps, payment: PresentedPayment, now: number): Promise<PerUseGrant> {
  return findPaymentMethod(payment.method)!.perUse!.authorize(deps, payment, now);
}

/** What the answer to an MCP call carries in `_meta` for the method's payment. */
export function perUseMcpResult(payment: PresentedPayment, headers: Readonly<Record<string, string>>): Record<string, unknown> {
  return findPaymentMethod(payment.method)?.perUse?.mcpResult?.(headers) ?? {};
}

let cached: (PaymentMethod & { perUse: PerUse })[] | undefined;
