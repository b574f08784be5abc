/**
 * Signed answers (runtime/domain/signing/): the headers every knowledge answer carries and the endpoint
 * publishing the keys that verify them.
 */
import { Type } from "@sinclair/typebox";
import type { Operation } from "./operations.ts";

/**
 * On every 200 of a node, an index, an evaluation, a search or a delta page: `Content-Digest`
 * (RFC 9530, sha-256 of the body), `Knowledge-Identity` (what the answer is) and the RFC 9421
 * signature over both (`Signature-Input` / `Signature`, label `vkr`, Ed25519).
 */
export const SIGNATURE_HEADERS = ["Content-Digest", "Knowledge-Identity", "Signature-Input", "Signature"];

const PublicJwkSchema = Type.Object({
  kty: Type.Literal("OKP"),
  crv: Type.Literal("Ed25519"),
  x: Type.String(),
  kid: Type.String({ description: "RFC 7638 thumbprint of the key; the `keyid` of Signature-Input" }),
  use: Type.Literal("sig"),
  alg: Type.Literal("EdDSA"),
});

export const SIGNING_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/.well-known/jwks.json",
    operationId: "getSigningKeys",
    metrics: "request",
    security: ["none"],
    summary: "Public keys of signed answers (JWK Set)",
    description:
      "The Ed25519 keys answers are signed with: the current key, keys kept after a rotation (SIGNING_PREVIOUS_KEYS) so answers saved before it still verify, and a development build's own key. " +
      'Every knowledge answer (GET /api/demo, POST /api/evaluate, GET /api/search, GET /v1/delta; MCP results in `_meta`) carries `Content-Digest: sha-256=:…:` and `Knowledge-Identity: vertical="…", node="…", version="…", view="…", build="…"` (plus `layers`, and `input`: the sha-256 of the RFC 8785 JSON of the facts or query of a dynamic answer), signed per RFC 9421: ' +
      '`Signature-Input: vkr=("content-digest" "knowledge-identity");keyid="<kid>";alg="ed25519";tag="vkr-answer"` (with `created` on dynamic answers). The signature covers header fields only, so a saved response verifies offline with this key set (`vkr verify-answer`, or the client\'s `verifyAnswer`).',
    responses: {
      200: { description: "The JWK Set", content: { "application/jwk-set+json": Type.Object({ keys: Type.Array(PublicJwkSchema) }) } },
    },
  },
];
