/**
 * How a caller who sees only the free view of a node can unlock its layers, as data an agent can
 * act on, and the warning carried by a free view served although the presented key was refused.
 * Declared once: the build writes `unlock` into every locked node variant, and the runtime puts
 * the same shape into the 402/403 problems of content that has no free view.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { Limits, TrialRule } from "./catalog.ts";

export const UnlockHintSchema = Type.Object(
  {
    /** Present when a free trial key of this vertical unlocks the node. */
    trial: Type.Optional(
      Type.Object({
        method: Type.Literal("POST"),
        path: Type.Literal("/api/trial"),
        body: Type.Object({ vertical: Type.String() }),
        calls: Type.Integer(),
        hours: Type.Integer(),
      }),
    ),
    /** A membership key of `vertical` (or, for a vertical included with every membership, any). */
    membership: Type.Object({
      vertical: Type.String(),
      any_membership: Type.Boolean(),
      method: Type.Literal("POST"),
      path: Type.Literal("/api/checkout"),
      /** Prices and payment methods: GET this path first. */
      checkout_info: Type.Literal("/api/checkout"),
    }),
    /** A per-use payment token instead of a key: one charge per content node request. */
    per_use: Type.Object({ header: Type.Literal("pay-network-pay-id"), price_usd: Type.String() }),
    /**
     * This node's paid URL: one read paid with x402, no key, no token (where the server offers it:
     * GET /api/status lists http402 under `per_use`). GET it with an x402 client such as @x402/fetch.
     */
    pay_per_read: Type.Optional(Type.Object({ method: Type.Literal("http402"), path: Type.String(), price_usd: Type.String() })),
  },
  { additionalProperties: false },
);
export type UnlockHint = Static<typeof UnlockHintSchema>;

/** The codes of a refused key (`runtime/shared/errors.ts`); the key was ignored and the free view served. */
export const CredentialProblemSchema = Type.Object({
  code: Type.Union([Type.Literal("key_invalid"), Type.Literal("key_revoked"), Type.Literal("key_expired"), Type.Literal("key_rerolled")]),
  title: Type.String(),
  detail: Type.String(),
});
export type CredentialProblem = Static<typeof CredentialProblemSchema>;

/** The response header naming the problem code of a refused key on a free view. */
export const CREDENTIAL_PROBLEM_HEADER = "credential-problem";

/** What the unlock hint is computed from: the catalogue entry of the vertical. */
export interface UnlockVertical {
  slug: string;
  included_with_membership: boolean;
  trial?: TrialRule;
}

/**
 * @param node the node's trial flag (null for a vertical as a whole: a trial exists at all)
 * @example toUnlockHint(travel, { trial: false }, limits).membership.vertical // "travel"
 */
export function toUnlockHint(
  vertical: UnlockVertical,
  node: { trial: boolean; id?: string } | null,
  limits: Pick<Limits, "per_use_price_usd_micros" | "trial_calls" | "trial_hours">,
): UnlockHint {
  const trialOpen = node === null ? vertical.trial !== undefined : node.trial;
  return {
    ...(trialOpen
      ? {
          trial: {
            method: "POST" as const,
            path: "/api/trial" as const,
            body: { vertical: vertical.slug },
            calls: limits.trial_calls,
            hours: limits.trial_hours,
          },
        }
      : {}),
    membership: {
      vertical: vertical.slug,
      any_membership: vertical.included_with_membership,
      method: "POST",
      path: "/api/checkout",
      checkout_info: "/api/checkout",
    },
    per_use: { header: "pay-network-pay-id", price_usd: _usd(limits.per_use_price_usd_micros) },
    ...(node?.id === undefined
      ? {}
      : {
          pay_per_read: {
            method: "http402" as const,
            path: `/api/demo?vertical=${encodeURIComponent(vertical.slug)}&node=${encodeURIComponent(node.id)}&pay=x402`,
            price_usd: _usd(limits.per_use_price_usd_micros),
          },
        }),
  };
}

// --- Internal helpers ---

/** Micro-dollars as a plain decimal without float noise: 2000 → "0.002". */
function _usd(micros: number): string {
  const fraction = String(micros % 1_000_000)
    .padStart(6, "0")
    .replace(/0+$/, "");
  return `${Math.floor(micros / 1_000_000)}${fraction ? `.${fraction}` : ""}`;
}
