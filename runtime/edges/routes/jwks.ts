/**
 * GET /.well-known/jwks.json: the public keys answers are signed with (Ed25519 JWKs, `kid` = RFC
 * 7638 thumbprint), including earlier keys kept after a rotation, so an answer saved today still
 * verifies after the key changes. Public and cacheable: it holds no secret and changes rarely.
 */

import { sendJson } from "../../shared/http/respond.ts";
import { defineRoutes } from "./route-table.ts";

export default defineRoutes((route, deps) => {
  route("getSigningKeys", (event) =>
    sendJson(
      event,
      200,
      { keys: deps.shared.signer.publicKeys(deps.build.current) },
      { "content-type": "application/jwk-set+json", "cache-control": "public, max-age=300" },
    ),
  );
});
