/** The admin bearer cannot be brute-forced: wrong guesses per client are limited, right ones unaffected until then. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
beforeAll(async () => void (svc = await startTestService(buildContentTo(writeFixtureContent()), { ADMIN_FAILURES_PER_15_MIN: "3" })));
afterAll(() => svc?.close());

const issue = (bearer: string | null) =>
  svc.request("/api/keys", { method: "POST", headers: bearer ? { authorization: `Bearer ${bearer}` } : {}, json: { vertical: "travel" } });

describe("admin bearer guessing", () => {
  it("gets 403 for each wrong guess up to the limit, then 429 with Retry-After, and recovers with the window", async () => {
    expect((await issue(ADMIN_KEY)).status).toBe(201);
    expect((await issue(null)).status).toBe(401); // a missing header is not a guess…
    for (let i = 0; i < 3; i++) expect((await issue(`guess-${i}`)).status).toBe(403); // …so three guesses still get 403
    const limited = await issue("guess-4");
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Even the right key waits: the limit is on the client, not on the guess.
    expect((await issue(ADMIN_KEY)).status).toBe(429);
    svc.clock.advance(15 * 60_000);
    expect((await issue(ADMIN_KEY)).status).toBe(201);
  });
});
