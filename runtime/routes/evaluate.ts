/** POST /api/evaluate: validates the body, resolves the caller and hands over to `evaluateNode`. */
import { defineRoutes } from "./route-table.ts";
import { requestCaller } from "../access/request-caller.ts";
import { compileValidator, readJsonBody } from "../http/body.ts";
import { CREDENTIAL_VARY } from "../http/headers.ts";
import { sendSharedSignedJson } from "../signing/send-signed.ts";
import { evaluateNode } from "../rules/evaluate-node.ts";
import { EvaluateRequestSchema } from "../schema/requests.ts";

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
