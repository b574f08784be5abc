/**
 * Counts one content read the way `decideRead` decided it (`ReadDecision.meter`): a key's windows
 * for gated layers it unlocked, one per-use charge for a paid read, nothing for free content
 * (which only the per-client limit of the route bounds). The single call site per read path sits
 * after the 304 check, so a 304 (and anything else answered before it) consumes nothing.
 */
import type { AppDeps } from "../deps.ts";
import { limitsInForce } from "../deps.ts";
import type { Caller } from "../access/credentials.ts";
import type { ReadDecision } from "../access/decide-read.ts";
import { chargePerUse, type PerUseAuthorization } from "../payments/per-use.ts";
import { meterKey } from "./meter.ts";

export interface MeteredRead {
  decision: ReadDecision;
  caller: Caller;
  /** The authorized pay token when `decision.meter` is "payment". */
  perUse: PerUseAuthorization | null;
}

/** Returns the headers that report the count or the charge (RateLimit, Pay-Network-*). */
export async function meterRead(deps: AppDeps, read: MeteredRead, now: number): Promise<Record<string, string>> {
  if (read.decision.meter === "key" && read.caller.kind === "key") return (await meterKey(deps.backend, limitsInForce(deps), read.caller.record, now)).headers;
  if (read.decision.meter === "payment" && read.perUse) return chargePerUse(deps, read.perUse, now);
  return {};
}
