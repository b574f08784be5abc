/**
 * Trial farming: one client address minting trial keys under a new agent_id each time is stopped
 * by TRIALS_PER_CLIENT_HOUR; a refused request leaves no trial behind for its agent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, T0, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
beforeAll(async () => void (svc = await startTestService(buildContentTo(writeFixtureContent()), { TRIALS_PER_CLIENT_HOUR: "3" })));
afterAll(() => svc?.close());

const trial = (agent_id: string) => svc.request("/api/trial", { method: "POST", json: { agent_id } });

describe("trial creation per client", () => {
  it("admits TRIALS_PER_CLIENT_HOUR new agents an hour, then 429 with Retry-After; the refused agent can try again next hour", async () => {
    expect(svc.clock.now()).toBe(T0); // 10:30 UTC: 30 minutes left in the hour window
    for (const agent of ["farm-1", "farm-2", "farm-3"]) expect((await trial(agent)).status).toBe(200);
    const refused = await trial("farm-4");
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("rate_limited");
    expect(refused.headers.get("retry-after")).toBe("1800");

    svc.clock.advance(1800 * 1000);
    // Not 409 trial_exists: the refused request released its agent's slot.
    expect((await trial("farm-4")).status).toBe(200);
  });
});
