/**
 * The secret that signs delta cursors: CURSOR_SECRET when set, else a random one generated once
 * and kept in the state store. Insert-once makes the first instance's secret everyone's (on Redis
 * all instances agree; on SQLite it survives restarts), so no deployment signs with a public
 * default and cursors still verify after a restart.
 */
import { randomBytes } from "node:crypto";
import type { StateBackend } from "../../state/storage/backend.ts";
import type { DomainDeps } from "../domain-deps.ts";

const SECRET_KEY = "delta:cursor-secret";
const resolved = new WeakMap<StateBackend, Promise<string>>();

export function cursorSecret(deps: Pick<DomainDeps, "backend" | "clock" | "config">): Promise<string> {
  if (deps.config.cursorSecret !== undefined) return Promise.resolve(deps.config.cursorSecret);
  let secret = resolved.get(deps.backend);
  if (!secret) {
    secret = deps.backend.insertOnce(SECRET_KEY, randomBytes(32).toString("base64url"), null, deps.clock.now()).then((r) => r.value);
    resolved.set(deps.backend, secret);
    // A store outage must not pin a failure: the next request tries again.
    secret.catch(() => resolved.delete(deps.backend));
  }
  return secret;
}
