/** GET /api/waitlist: seats and cohort status. POST /api/waitlist: join a paid vertical's waitlist. */
import { definePlugin } from "h3";
import type { AppDeps } from "../deps.ts";
import { compileValidator, readJsonBody } from "../http/body.ts";
import { sendJson } from "../http/respond.ts";
import { clientAddress } from "../http/client-address.ts";
import { describeWaitlist, joinWaitlist } from "../growth/waitlist.ts";
import { WaitlistRequestSchema } from "../schema/growth-requests.ts";

const validator = compileValidator(WaitlistRequestSchema);

export default definePlugin<AppDeps>((app, deps) => {
  app.get("/api/waitlist", async (event) => sendJson(event, 200, await describeWaitlist(deps), { "cache-control": "no-cache" }));

  app.post("/api/waitlist", async (event) => {
    const body = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    return sendJson(event, 200, await joinWaitlist(deps, body, clientAddress(event, deps.config), deps.clock.now()));
  });
});
