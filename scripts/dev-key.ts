/**
 * The local key `npm run dev` prints: a membership key for every vertical, so an author reads and
 * evaluates a node they are writing in any vertical (a new travel node is outside the trial's five
 * modules, and a membership of one vertical does not open the others).
 *
 * It is an ordinary key of the dev server's own state store (label `dev`), issued the way `vkr
 * keys create --vertical all` issues one; its text is kept beside the store (`<DATA_DIR>/dev-key`,
 * readable by the owner only) so each `npm run dev` prints the same key. Only this dev script
 * creates it: builds carry no keys, and neither `npm start` nor the server bundle has this code.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppDeps } from "../runtime/deps.ts";
import { isCredentialRefusal, resolveKey } from "../runtime/domain/access/credentials.ts";
import { issueAdminKeys } from "../runtime/domain/payments/purchases/issue-keys.ts";

export const DEV_KEY_FILE = "dev-key";
export const DEV_KEY_LABEL = "dev";

/** The dev key: the one kept from an earlier run while it still opens every vertical, else a new one. */
export async function ensureDevKey(
  deps: Pick<AppDeps, "backend" | "keys" | "build" | "config" | "logger" | "clock">,
): Promise<{ key: string; created: boolean }> {
  const file = join(deps.config.dataDir, DEV_KEY_FILE);
  const now = deps.clock.now();
  const kept = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  if (kept) {
    try {
      const record = await resolveKey(kept, deps.keys, now);
      if (record.vertical === "all") return { key: kept, created: false };
    } catch (error) {
      // Revoked, expired or from a store that was wiped: issue another.
      if (!isCredentialRefusal(error)) throw error;
    }
  }
  const [issued] = await issueAdminKeys(deps, { vertical: "all", quantity: 1, label: DEV_KEY_LABEL, permanent: true }, now);
  mkdirSync(deps.config.dataDir, { recursive: true });
  writeFileSync(file, `${issued!.key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { key: issued!.key, created: true };
}
