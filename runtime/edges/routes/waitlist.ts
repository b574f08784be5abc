/** GET /api/waitlist: seats and cohort status. POST /api/waitlist: join a paid vertical's waitlist. */

import { describeWaitlist, joinWaitlist } from "../../domain/growth/waitlist.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { WaitlistRequestSchema } from "../../shared/schema/growth-requests.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(WaitlistRequestSchema);

export default defineRoutes((route, deps) => {
  route("getWaitlist", async (event) => sendJson(event, 200, await describeWaitlist(deps), { "cache-control": "no-cache" }));

  route("joinWaitlist", async (event) => {
    const body = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    return sendJson(event, 200, await joinWaitlist(deps, body, clientAddress(event, deps.config), deps.clock.now()));
  });
});
