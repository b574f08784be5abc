/** The real service on a real port over the fixture build, wired to whichever payment stand-ins a suite starts. */
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";

let dist: string | undefined;

export async function startPaymentsService(env: Record<string, string>): Promise<TestService> {
  dist ??= buildContentTo(writeFixtureContent());
  return startTestService(dist, env);
}

/** A body for POST /api/checkout. */
export function checkoutBody(method: "card" | "agent_network" | "http402", extra: Record<string, unknown> = {}) {
  return { vertical: "travel", payment_method: method, ...extra };
}
