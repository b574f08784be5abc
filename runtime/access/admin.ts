/**
 * The admin bearer of POST /api/keys: missing → 401, wrong → 403 (spec), compared in constant
 * time. Without a configured ADMIN_KEY every bearer is wrong, so admin issuance is simply off.
 */
import { apiError } from "../errors.ts";
import { secretsEqual } from "../keys/key-secret.ts";

export function assertAdmin(headers: Headers, adminKey: string | undefined): void {
  const auth = headers.get("authorization");
  if (!auth || !/^bearer\s+\S/i.test(auth)) throw apiError("admin_auth_missing");
  const presented = auth.replace(/^bearer\s+/i, "").trim();
  // Compare even when no key is configured, so both cases take the same time.
  const ok = secretsEqual(presented, adminKey ?? "\u0000no-admin-key");
  if (!ok || adminKey === undefined) throw apiError("admin_auth_invalid");
}
