/**
 * The key a build signs with. A release build is given one (SIGNING_KEY, read by the CLI, never
 * stored in the repository); without one the build uses a development key, marked `dev` in the
 * manifest, which the publisher refuses for a release. The development key is kept beside the
 * output (`<outDir>/.dev-signing-key.json`, mode 0600) so rebuilding unchanged content keeps the
 * same key and the same published folder; an in-memory build gets a fresh one.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SigningKey } from "../runtime/shared/answer-signature.ts";
import { exportPrivateJwk, generateSigningKey, parseSigningKey } from "../runtime/shared/signing-keys.ts";
import type { ResolvedBuildConfig } from "./config.ts";

export interface BuildSigningKey {
  key: SigningKey;
  /** True for a development key. */
  dev: boolean;
}

export const DEV_SIGNING_KEY_FILE = ".dev-signing-key.json";

export function resolveBuildSigningKey(config: Pick<ResolvedBuildConfig, "signingKey" | "outDir" | "write">): BuildSigningKey {
  if (config.signingKey !== undefined) return { key: parseSigningKey(config.signingKey), dev: false };
  if (!config.write) return { key: generateSigningKey(), dev: true };
  const file = join(config.outDir, DEV_SIGNING_KEY_FILE);
  if (existsSync(file)) {
    try {
      return { key: parseSigningKey(readFileSync(file, "utf8")), dev: true };
    } catch {
      // Unreadable or not a key: replaced below, as a missing one would be.
    }
  }
  const key = generateSigningKey();
  mkdirSync(config.outDir, { recursive: true });
  writeFileSync(file, exportPrivateJwk(key), { mode: 0o600 });
  return { key, dev: true };
}

/**
 * SIGNING_KEY from the environment, for the build CLIs: a release build refuses to start without
 * it (a release signed with a development key could not be published anyway).
 * @example signingKeyFromEnv(process.env, true) // the key text, or throws
 */
export function signingKeyFromEnv(env: Record<string, string | undefined>, release: boolean): { signingKey?: string } {
  const text = env.SIGNING_KEY?.trim();
  if (text) return { signingKey: text };
  if (release) {
    throw new Error(
      "a release build needs SIGNING_KEY (the Ed25519 private key, a JWK or PKCS#8 PEM, that signs every served answer; see docs/configuration.md). Without --release the build signs with a development key.",
    );
  }
  return {};
}
