/** The real service on a real port over the fixture build, wired to whichever payment stand-ins a suite starts. */

import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { type RelayStandIn, startMailRelay } from "./stand-ins/mail-relay.ts";
import { type StripeStandIn, startStripe, stripeEnv } from "./stand-ins/stripe.ts";

let dist: string | undefined;

export async function startPaymentsService(env: Record<string, string>): Promise<TestService> {
  dist ??= buildContentTo(writeFixtureContent());
  return startTestService(dist, env);
}

/** A body for POST /api/checkout. */
export function checkoutBody(method: "card" | "agent_network" | "http402", extra: Record<string, unknown> = {}) {
  return { vertical: "travel", payment_method: method, ...extra };
}

export interface CardSuite {
  svc: TestService;
  stripe: StripeStandIn;
  relay: RelayStandIn;
  close(): Promise<void>;
}

/** The service with card payments against the Stripe stand-in, mailing keys through the relay stand-in. */
export async function startCardSuite(env: Record<string, string> = {}): Promise<CardSuite> {
  const stripe = await startStripe();
  const relay = await startMailRelay();
  const svc = await startPaymentsService({ ...stripeEnv(stripe, relay.url), ...env });
  return {
    svc,
    stripe,
    relay,
    async close() {
      await svc.close();
      await stripe.close();
      await relay.close();
    },
  };
}
