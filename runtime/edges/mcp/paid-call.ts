/**
 * Per-use payment over MCP, following the x402 project's MCP transport: a tool call asks to pay
 * for its read with `pay` (as `?pay=` on REST), without a payment first; its result is the 402
 * problem as `isError`, whose payment requirements (x402 v2 `PaymentRequired`) are in
 * `_meta["x402/payment-required"]` and in a second text block as JSON. The same call again with
 * the payment (a `PaymentPayload` object) in `_meta["x402/payment"]` is paid and answered, the
 * settlement in the result's `_meta["x402/payment-response"]`. Which method pays is the registry's
 * business (`payments/methods/per-use-read.ts`); a key sent with the call wins, as on REST.
 */
import { Type } from "@sinclair/typebox";
import type { Caller } from "../../domain/access/credentials.ts";
import { perUseMcpResult, perUseMethods, presentedPayment } from "../../domain/payments/methods/per-use-read.ts";
import type { McpContext } from "./context.ts";

/** The `pay` argument of the tools that read gated content: the query values per-use methods are asked with. */
export const PayArgument = Type.Object({
  pay: Type.Optional(
    Type.Union(
      perUseMethods().flatMap((m) => (m.perUse.openapi.query ?? []).flatMap((q) => q.values.map((v) => Type.Literal(v)))),
      {
        description:
          'Pay for this one read instead of holding a key (the free view is the default): "x402" answers with the x402 payment requirements in _meta["x402/payment-required"]; call again with the payment in _meta["x402/payment"].',
      },
    ),
  ),
});

/**
 * The caller of a tool call that may pay per read: the HTTP request's own credentials (left to
 * the tool to resolve, so a refused key reads free content as before), unless the call asked to
 * pay with `pay` and sent no key. Records the payment on the context, so the result can carry
 * what the method reports (`paidResultMeta`).
 */
export function payingCaller(ctx: McpContext, tool: string, args: { vertical: string; node: string; pay?: string }): Caller | undefined {
  if (args.pay === undefined || ctx.presentedKey !== null) return undefined;
  const query = new URLSearchParams({ tool, vertical: args.vertical, node: args.node, pay: args.pay });
  const resource = `/mcp?${query.toString()}`;
  const payment = presentedPayment(
    { headers: new Headers(), url: new URL(resource, "http://mcp.invalid"), meta: ctx.toolMeta },
    resource,
    true,
  );
  if (payment === null) return undefined;
  ctx.payment = payment;
  return { kind: "payment", payment };
}

/** What a paid call's result adds to `_meta` (x402: the settlement), from the answer's payment headers. */
export function paidResultMeta(ctx: McpContext): Record<string, unknown> {
  return ctx.payment ? perUseMcpResult(ctx.payment, ctx.headers) : {};
}
