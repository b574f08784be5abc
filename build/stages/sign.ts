/**
 * Stage 8a, signatures: once the build id is known, every served file (node variants, indexes) is
 * signed over its Content-Digest and Knowledge-Identity (runtime/domain/signing/). The runtime then
 * serves these signatures as they are: a static read never signs anything.
 */

import { contentDigestFromHex, formatIdentity, signHeaders } from "../../runtime/shared/answer-signature.ts";
import { identityOfFile } from "../../runtime/shared/file-identity.ts";
import type { Manifest, ManifestSigning } from "../../runtime/shared/schema/artifacts.ts";
import { publicJwk } from "../../runtime/shared/signing-keys.ts";
import type { BuildSigningKey } from "../signing-key.ts";

export function signArtifacts(manifest: Pick<Manifest, "build_id" | "verticals" | "files">, signing: BuildSigningKey): ManifestSigning {
  const { key, dev } = signing;
  const signatures: Record<string, string> = {};
  for (const [rel, hex] of Object.entries(manifest.files)) {
    const identity = identityOfFile(rel, manifest);
    if (!identity) continue;
    // The value between the colons of `vkr=:…:`.
    signatures[rel] = signHeaders(key, contentDigestFromHex(hex), formatIdentity(identity)).signature.slice(5, -1);
  }
  return { kid: key.kid, alg: "ed25519", dev, public_key: publicJwk(key.privateKey), signatures };
}
