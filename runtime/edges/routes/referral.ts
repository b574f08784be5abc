/** POST /api/referral: a member or trial agent logs a referral; $1.50 credit once the referred agent pays, 4 per billing cycle. */

import { requireKey } from "../../domain/access/require-key.ts";
import { logReferral } from "../../domain/growth/referral.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { ReferralRequestSchema } from "../../shared/schema/growth-requests.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(ReferralRequestSchema);

export default defineRoutes((route, deps) => {
  route("logReferral", async (event) => {
    const now = deps.clock.now();
    const caller = await requireKey(event, deps, { now, membership: false });
    const body = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    return sendJson(event, 200, await logReferral(deps, caller, body, now));
  });
});
