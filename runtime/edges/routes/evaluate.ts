/** POST /api/evaluate: validates the body, resolves the caller and hands over to `evaluateNode`. */

import { requestCaller } from "../../domain/access/request-caller.ts";
import { evaluateNode } from "../../domain/rules/evaluate-node.ts";
import { sendSharedSignedJson } from "../../domain/signing/send-signed.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { CREDENTIAL_VARY } from "../../shared/http/headers.ts";
import { EvaluateRequestSchema } from "../../shared/schema/requests.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(EvaluateRequestSchema);

export default defineRoutes((route, deps) => {
  route("evaluateRules", async (event) => {
    const request = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    const now = deps.clock.now();
    const caller = await requestCaller(event, deps).caller();
    const { body, headers, identity } = await evaluateNode(deps, caller, request, now);
    return sendSharedSignedJson(event, deps, body, identity, now, { ...headers, vary: CREDENTIAL_VARY });
  });
});
