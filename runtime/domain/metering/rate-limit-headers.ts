/**
 * IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` lists every
 * window of the key; `RateLimit` reports the tightest enforced window. Policy strings depend only
 * on the limits and the key kind, so they are built once per combination and reused.
 */
import type { PlannedWindow } from "./quota.ts";
import { secondsUntil } from "./quota.ts";

const policyCache = new WeakMap<object, Map<string, string>>();

export function rateLimitPolicy(windows: PlannedWindow[], cacheScope: object): string {
  const signature = windows.map((w) => `${w.name}:${w.quota}:${w.seconds}`).join(",");
  let scoped = policyCache.get(cacheScope);
  if (!scoped) policyCache.set(cacheScope, (scoped = new Map()));
  let value = scoped.get(signature);
  if (value === undefined) {
    value = windows.map((w) => `"${w.name}";q=${w.quota}${w.seconds ? `;w=${w.seconds}` : ""}`).join(", ");
    scoped.set(signature, value);
  }
  return value;
}

/** Index of the enforced window with the fewest calls left. */
export function tightestWindow(windows: PlannedWindow[], counts: number[]): number {
  let best = -1;
  let bestLeft = Number.POSITIVE_INFINITY;
  windows.forEach((w, i) => {
    if (!w.enforced) return;
    const left = w.quota - counts[i]!;
    if (left < bestLeft) {
      bestLeft = left;
      best = i;
    }
  });
  return best;
}

export function rateLimitValue(window: PlannedWindow, count: number, now: number): string {
  const t = secondsUntil(window.resetAt, now);
  return `"${window.name}";r=${Math.max(0, window.quota - count)}${t === null ? "" : `;t=${t}`}`;
}
