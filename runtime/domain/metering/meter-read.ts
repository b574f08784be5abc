/**
 * The last step of a read session (`access/read-session.ts`): counts one content read the way it
 * was planned (`ReadSession.meter`, from `decideRead` or `decideSearchMeter`): a key's windows
 * for gated layers it unlocked, one per-use charge for a paid read, nothing for free content
 * (which only the per-client limit of the route bounds). The single call site per read path sits
 * after the 304 check, so a 304 (and anything else answered before it) consumes nothing.
 */
import type { ReadSession } from "../access/read-session.ts";
import type { DomainDeps } from "../domain-deps.ts";
import { meterKey } from "./meter.ts";

/** Returns the headers that report the count or the charge (RateLimit, Pay-Network-*). */
export function meterRead(deps: DomainDeps, read: ReadSession, now: number): Promise<Record<string, string>> {
  if (read.meter === "key" && read.caller.kind === "key") return meterKey(deps.backend, read.limits, read.caller.record, now);
  if (read.meter === "payment" && read.perUse) return read.perUse.charge(deps, now);
  return Promise.resolve({});
}
