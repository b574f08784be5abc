/**
 * Card reaches the buyer: with only STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET
 * set (no relay), Stripe returns the buyer to /checkout/success, which confirms the payment with
 * Stripe itself when the webhook is late and shows the keys once; with SMTP_URL they are also
 * mailed, through a real SMTP listener (smtp-server) that this suite starts. The page is looked at
 * in headless Chromium at phone width. The success URL never comes from the request's Host.
 */
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { simpleParser } from "mailparser";
import { chromium } from "playwright-core";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { type StripeStandIn, startStripe, stripeEnv } from "./stand-ins/stripe.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = resolve("test/artifacts");

let stripe: StripeStandIn;
let plain: TestService;
let mailing: TestService;
let smtp: SMTPServer;
const mails: Array<{ to: string; subject: string; text: string }> = [];

beforeAll(async () => {
  stripe = await startStripe();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, done) {
      void simpleParser(stream).then((parsed) => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(","), subject: parsed.subject ?? "", text: parsed.text ?? "" });
        done();
      }, done);
    },
  });
  await new Promise<void>((ok) => smtp.listen(0, "127.0.0.1", ok));
  const smtpPort = (smtp.server.address() as { port: number }).port;
  plain = await startPaymentsService(stripeEnv(stripe));
  mailing = await startPaymentsService({ ...stripeEnv(stripe), SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, SMTP_FROM: "keys@vkr.test" });
});
afterAll(async () => {
  await plain?.close();
  await mailing?.close();
  await new Promise<void>((ok) => (smtp ? smtp.close(ok) : ok()));
  await stripe?.close();
});

async function checkout(svc: TestService, contact: string, quantity = 1) {
  const res = await svc.request("/api/checkout", { method: "POST", json: checkoutBody("card", { contact, quantity }), redirect: "manual" });
  expect(res.status).toBe(303);
  return res.body as { session_id: string; purchase_id: string; url: string };
}
const successPage = (svc: TestService, sessionId: string, accept = "application/json") =>
  svc.request(`/checkout/success?session_id=${sessionId}`, { headers: { accept } });

describe("card with Stripe alone: the success page", () => {
  it("card is available with only the two Stripe settings, and Stripe is sent back to our success page", async () => {
    const info = await plain.request("/api/checkout");
    expect(info.body.payment_methods.find((m: { id: string }) => m.id === "card").available).toBe(true);
    const { session_id } = await checkout(plain, "alone@example.com");
    const sent = stripe.sessions.find((s) => s.session.id === session_id)!;
    expect(sent.params.success_url).toBe(`${plain.url}/checkout/success?session_id={CHECKOUT_SESSION_ID}`);
  });

  it("a forged Host header never reaches the URLs we hand to Stripe", async () => {
    const before = stripe.sessions.length;
    const status = await new Promise<number>((resolveStatus, reject) => {
      const url = new URL(`${plain.url}/api/checkout`);
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: { host: "evil.example", "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          resolveStatus(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(checkoutBody("card", { contact: "host@example.com" })));
    });
    expect(status).toBe(303);
    const sent = stripe.sessions
      .slice(before)
      .map((s) => `${s.params.success_url} ${s.params.cancel_url}`)
      .join(" ");
    expect(sent).not.toContain("evil.example");
    expect(sent).toContain(plain.url);
  });

  it("before payment it waits (the HTML reloads itself); once paid at Stripe, the page confirms it itself and shows the keys exactly once", async () => {
    const { session_id } = await checkout(plain, "late-webhook@example.com", 2);
    expect((await successPage(plain, session_id)).body.status).toBe("awaiting_payment");
    const waiting = await successPage(plain, session_id, "text/html");
    expect(waiting.text).toContain('http-equiv="refresh"');
    expect(waiting.headers.get("cache-control")).toBe("no-store");

    stripe.pay(session_id);
    const shown = await successPage(plain, session_id);
    expect(shown.status).toBe(200);
    expect(shown.body.status).toBe("keys");
    expect(shown.body.keys).toHaveLength(2);
    expect(shown.body.mailed_to).toBeNull();
    for (const { key } of shown.body.keys)
      expect((await plain.request("/api/demo?vertical=travel&node=trv-m7", { headers: { "x-service-key": key } })).status).toBe(200);

    // Never again: not on a reload, not as HTML, and the late webhook issues nothing new.
    const again = await successPage(plain, session_id);
    expect(again.body).toMatchObject({ status: "already_shown", purchase_id: shown.body.purchase_id });
    expect((await successPage(plain, session_id, "text/html")).text).not.toContain("svc_live_");
    const payload = stripe.event("checkout.session.completed", stripe.pay(session_id));
    const late = await plain.request("/api/checkout/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": stripe.sign(payload, Math.floor(plain.clock.now() / 1000)) },
      body: payload,
    });
    expect(late.body.outcome).toBe("duplicate");
  });

  it("an unknown session is 404; a malformed id is 400", async () => {
    expect((await successPage(plain, "cs_test_unknown")).status).toBe(404);
    expect((await plain.request("/checkout/success?session_id=../../etc")).status).toBe(400);
  });

  it("reads well in Chromium at phone width: the keys are in view, nothing overflows sideways", async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-services.sh`);
    mkdirSync(ARTIFACTS, { recursive: true });
    const { session_id } = await checkout(plain, "browser@example.com", 2);
    stripe.pay(session_id);
    const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "vkr-chromium-")), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      viewport: { width: 390, height: 844 },
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`${plain.url}/checkout/success?session_id=${session_id}`);
      await expect(page.locator("h1").textContent()).resolves.toBe("Your membership keys");
      expect(await page.locator("li code").count()).toBe(2);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: join(ARTIFACTS, "checkout-success-390.png"), fullPage: true });
    } finally {
      await context.close();
    }
  });
});

describe("card with SMTP_URL: the keys are also mailed", () => {
  it("mails the keys to contact through the operator's SMTP server when Stripe's webhook fulfils the session", async () => {
    const { session_id } = await checkout(mailing, "mailed@example.com", 2);
    const payload = stripe.event("checkout.session.completed", stripe.pay(session_id));
    const hook = await mailing.request("/api/checkout/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": stripe.sign(payload, Math.floor(mailing.clock.now() / 1000)) },
      body: payload,
    });
    expect(hook.body.outcome).toBe("fulfilled");
    const mail = mails.find((m) => m.to === "mailed@example.com")!;
    expect(mail.subject).toBe("Your 2 membership keys for travel");
    const mailedKeys = mail.text.match(/svc_live_[0-9A-Za-z]{22}/g)!;
    expect(mailedKeys).toHaveLength(2);
    // The page still shows them once, and says where they went.
    const shown = await successPage(mailing, session_id);
    expect(shown.body.keys.map((k: { key: string }) => k.key).sort()).toEqual([...mailedKeys].sort());
    expect(shown.body.mailed_to).toBe("mailed@example.com");
    expect((await successPage(mailing, session_id)).body).toMatchObject({ status: "already_shown", mailed_to: "mailed@example.com" });
    // Keys never reach the logs.
    expect(mailing.logs.join("\n")).not.toMatch(/svc_live_[0-9A-Za-z]{22}/);
  });
});
