/** Store writes that fail on purpose, in-process, as an outage would (the ledger and unconfirmed-charge suites). */
import type { TestService } from "../helpers/test-service.ts";

export type StoreWrite = "setItem" | "insertOnce" | "consume" | "removeOnce";

/**
 * Fails the `nth` store write (of any kind, counted from now, among those `only` accepts) once;
 * returns the writes seen. `restore` collects the undo, for the suite's afterEach.
 */
export function failWrite(
  svc: TestService,
  restore: (() => void)[],
  nth: number,
  only?: (kind: StoreWrite, key: string, value: unknown) => boolean,
): string[] {
  const backend = svc.service.deps.backend as unknown as Record<StoreWrite, (...args: any[]) => Promise<unknown>> & { records: any };
  let seen = 0;
  const log: string[] = [];
  for (const kind of ["setItem", "insertOnce", "consume", "removeOnce"] as const) {
    const target = kind === "setItem" ? backend.records : backend;
    const original = target[kind];
    target[kind] = async (...args: any[]) => {
      const key = kind === "consume" ? (args[0] as Array<{ key: string }>).map((w) => w.key).join("+") : String(args[0]);
      if (!only || only(kind, key, args[1])) {
        seen += 1;
        log.push(`${kind} ${key}`);
        if (seen === nth) throw new Error("simulated store outage");
      }
      return original.apply(target, args);
    };
    restore.push(() => (target[kind] = original));
  }
  return log;
}
