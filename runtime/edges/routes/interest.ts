/** POST /api/interest: a demand signal for an unbuilt vertical. GET /api/interest/summary: the ranking. */

import { registerInterest, summarizeInterest } from "../../domain/growth/interest.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { InterestRequestSchema } from "../../shared/schema/growth-requests.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(InterestRequestSchema);

export default defineRoutes((route, deps) => {
  route("registerInterest", async (event) => {
    const body = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    return sendJson(event, 200, await registerInterest(deps, body, clientAddress(event, deps.config), deps.clock.now()));
  });

  route("getInterestSummary", async (event) => sendJson(event, 200, await summarizeInterest(deps), { "cache-control": "no-cache" }));
});
