/**
 * GET /.well-known/jwks.json: the public keys answers are signed with (Ed25519 JWKs, `kid` = RFC
 * 7638 thumbprint), including earlier keys kept after a rotation, so an answer saved today still
 * verifies after the key changes. Public and cacheable: it holds no secret and changes rarely.
 */

import { Type } from "@sinclair/typebox";
import { sendJson } from "../../shared/http/respond.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const PublicJwkSchema = Type.Object({
  kty: Type.Literal("OKP"),
  crv: Type.Literal("Ed25519"),
  x: Type.String(),
  kid: Type.String({ description: "RFC 7638 thumbprint of the key; the `keyid` of Signature-Input" }),
  use: Type.Literal("sig"),
  alg: Type.Literal("EdDSA"),
});

const DECLARATIONS: RouteDeclaration[] = [
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

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("getSigningKeys", (event) =>
    sendJson(
      event,
      200,
      { keys: deps.shared.signer.publicKeys(deps.build.current) },
      { "content-type": "application/jwk-set+json", "cache-control": "public, max-age=300" },
    ),
  );
});
