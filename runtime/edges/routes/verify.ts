/**
 * GET /api/verify: is this key usable, for what, and how much is left. An unknown, malformed,
 * revoked or expired key is still a 200 with `valid: false` and a reason (like Unkey's verify);
 * only a request without any key is a 401.
 */

import type { Static } from "@sinclair/typebox";
import { readCredentials } from "../../domain/access/credentials.ts";
import { noteKey } from "../../domain/access/request-caller.ts";
import { verifyKey } from "../../domain/keys/verify-key.ts";
import { apiError } from "../../shared/errors.ts";
import { requestContext } from "../../shared/http/context.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { VerifyKeyRequestSchema } from "../../shared/schema/requests.ts";
import { VerifyResponseSchema } from "../../shared/schema/responses.ts";
import { defineTool } from "../mcp/tool-definition.ts";
import { KEY_HEADER } from "../openapi/fragments.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const VERIFY_KEY_TOOL = defineTool({
  name: "verify_key",
  title: "Verify a key",
  description:
    "Checks the presented service key (or the `key` argument): validity, type, verticals it unlocks, remaining quota and expiry, as GET /api/verify. Consumes no quota.",
  input: VerifyKeyRequestSchema,
  output: VerifyResponseSchema,
  run: async (ctx, args: Static<typeof VerifyKeyRequestSchema>) => {
    const key = args.key ?? ctx.presentedKey;
    if (key === null || key === "")
      throw apiError("key_missing", { detail: "Pass `key`, or present one in X-Service-Key or Authorization: Bearer." });
    return { structured: (await verifyKey(ctx.deps, key, ctx.now)).body };
  },
  rank: 7,
});

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/api/verify",
    operationId: "verifyKey",
    metrics: "request",
    mcp: [VERIFY_KEY_TOOL],
    summary: "Validate a key",
    description:
      "200 for any presented key: `valid: false` with a `reason` (unknown, malformed, revoked, expired, rerolled: a re-rolled secret past its grace period) when it cannot be used. 401 only when no key is sent.",
    security: ["serviceKey"],
    params: [KEY_HEADER],
    responses: { 200: { description: "Verification result", schema: VerifyResponseSchema }, 401: { description: "No key given" } },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("verifyKey", async (event) => {
    const ctx = requestContext(event);
    const { key } = readCredentials(event.req.headers, ctx.url, { allowQueryKey: false });
    if (key === null || key === "") throw apiError("key_missing");
    const { body, record } = await verifyKey(deps, key, deps.clock.now());
    if (record) noteKey(event, record);
    return sendJson(event, 200, body);
  });
});
