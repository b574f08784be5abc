/**
 * kill -9 at every state boundary of every payment method. The bundled server
 * runs as a child process with VKR_FAILPOINT=<point>, which SIGKILLs it the moment a purchase
 * reaches that point; it is restarted on the same state and the buyer retries (same
 * Idempotency-Key, same x402 payment, Stripe redelivering its event). For each boundary:
 * the buyer ends with exactly the keys paid for, each token or authorization is charged at most
 * once, and after reconciliation nothing is left in a non-final state. An x402 charge whose outcome
 * was lost is asked again; an agent_network one (the network's charge call cannot be asked again)
 * issues no key until the operator, having checked the network, says paid or not paid.
 * Card keys go by mail too (SMTP_URL, to a real SMTP listener this suite starts): exactly one mail
 * per purchase whichever path issued the keys (success page, webhook, redelivery, reconciliation).
 * Every cycle runs twice: with the state in SQLite, then on a Redis Cluster this file starts.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { type RedisTopology, startRedisCluster } from "../helpers/redis-topology.ts";
import { ADMIN_KEY } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "./stand-ins/agent-network.ts";
import { type StripeStandIn, startStripe, stripeEnv } from "./stand-ins/stripe.ts";
import { type FacilitatorStandIn, payWith, startFacilitator, x402Env } from "./stand-ins/x402-facilitator.ts";

/** Every boundary the purchase record crosses between reservation and answer. */
const POINTS = [
  "purchase:reserved",
  "purchase:charging",
  "purchase:before-charge",
  "purchase:after-charge",
  "purchase:charged",
  "purchase:issuing",
  "purchase:issued",
] as const;
const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };

let network: AgentNetworkStandIn;
let facilitator: FacilitatorStandIn;
let stripe: StripeStandIn;
let dist: string;
let smtp: SMTPServer;
let smtpPort = 0;
const mails: Array<{ to: string; keys: string[] }> = [];
/** Set while the cluster block runs: the servers keep their state there instead of SQLite. */
let onCluster: RedisTopology | null = null;
beforeAll(async () => {
  [network, facilitator, stripe] = await Promise.all([startAgentNetwork(), startFacilitator(), startStripe()]);
  dist = buildContentTo(writeFixtureContent());
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, done) {
      void simpleParser(stream).then((parsed) => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address).join(","),
          keys: (parsed.text ?? "").match(/svc_live_[0-9A-Za-z]{22}/g) ?? [],
        });
        done();
      }, done);
    },
  });
  await new Promise<void>((ok) => smtp.listen(0, "127.0.0.1", ok));
  smtpPort = (smtp.server.address() as { port: number }).port;
});
afterAll(async () => {
  await Promise.all([network?.close(), facilitator?.close(), stripe?.close()]);
  await new Promise<void>((ok) => (smtp ? smtp.close(ok) : ok()));
});

// The same cycles with the servers' state on a Redis Cluster (three primaries, three replicas) instead
// of SQLite: one cluster for the file (starting one is slow), a key namespace per crash case.
for (const store of ["the embedded store", "a Redis Cluster"] as const) {
  describe(`on ${store}`, () => {
    /** Keeps mail recipients and Idempotency-Keys apart from the other store's run. */
    const tag = store === "a Redis Cluster" ? "cluster-" : "";
    /**
     * On the cluster, x402 and card at the boundaries whose writes differ most (before the charge,
     * its outcome lost, keys part-written; a session created): each cycle costs two server starts.
     */
    const at = <T extends string>(all: readonly T[], onCluster: readonly T[]) => (store === "a Redis Cluster" ? onCluster : all);
    if (store === "a Redis Cluster") {
      beforeAll(async () => {
        onCluster = await startRedisCluster();
      }, 120_000);
      afterAll(async () => {
        await onCluster?.stop();
        onCluster = null;
      });
    }

    describe("kill -9 at each boundary, then a retry with the same Idempotency-Key: agent_network", { timeout: 120_000 }, () => {
      it.each(POINTS)("%s", (point) => _agentNetworkCrash(point));
    });

    describe("kill -9 at each boundary, then the same x402 payment again", { timeout: 120_000 }, () => {
      it.each(at(POINTS, ["purchase:charging", "purchase:after-charge", "purchase:issuing"]))("%s", async (point) => {
        const body = { vertical: "travel", payment_method: "http402", agent_id: `x402-${point}` };
        let header = "";
        const server = await _crashThenRestart(point, async (url) => {
          const required = await _post(url, "/api/checkout", body);
          header = await payWith(facilitator.wallet(), 1, required.body.accepts[0]);
          return _post(url, "/api/checkout", body, { "x-payment": header });
        });
        try {
          const settledBefore = facilitator.settled.length;
          const done = await _untilSettled(() => _post(server.url, "/api/checkout", body, { "x-payment": header }));
          expect(done.status).toBe(201);
          expect(done.body.keys).toHaveLength(1);
          // An authorization settles once, so a retry can always ask: exactly one settlement in all.
          const settledNow = facilitator.settled.length - settledBefore;
          expect(settledNow).toBe(["purchase:reserved", "purchase:charging", "purchase:before-charge"].includes(point) ? 1 : 0);
          const unconfirmed = point === "purchase:after-charge";
          expect(Boolean(done.body.receipt.charge_unconfirmed)).toBe(unconfirmed);
          await _expectSettled(server, {
            keys: done.body.keys.map((k: { key: string }) => k.key),
            attention: unconfirmed ? done.body.receipt.purchase_id : null,
          });
        } finally {
          await server.kill();
        }
      });
    });

    describe("kill -9 in a card purchase: at checkout (retry) and in fulfilment (Stripe redelivers)", { timeout: 120_000 }, () => {
      it.each(at(["purchase:reserved", "card:session-created"], ["card:session-created"]))(
        "checkout, %s: the retry gets one session; paying it issues the keys once",
        async (point) => {
          const contact = `${tag}card-${point.replace(":", "-")}@example.com`;
          const body = { vertical: "travel", payment_method: "card", contact, quantity: 2 };
          const headers = { "idempotency-key": `${tag}card-crash-${point}` };
          const server = await _crashThenRestart(point, (url) => _post(url, "/api/checkout", body, headers));
          try {
            const session = await _untilSettled(() => _post(server.url, "/api/checkout", body, headers));
            expect(session.status).toBe(303);
            expect(
              stripe.sessions
                .filter((s) => s.session.metadata.purchase_id === session.body.purchase_id)
                .map((s) => s.session.id)
                .filter((id, i, all) => all.indexOf(id) === i),
            ).toEqual([session.body.session_id]);
            const paid = stripe.pay(session.body.session_id);
            expect((await _webhook(server.url, stripe.event("checkout.session.completed", paid))).body.outcome).toBe("fulfilled");
            const page = await _get(server.url, `/checkout/success?session_id=${session.body.session_id}`, { accept: "application/json" });
            expect(page.body.status).toBe("keys");
            await _expectSettled(server, { keys: page.body.keys.map((k: { key: string }) => k.key), attention: null });
          } finally {
            await server.kill();
          }
        },
      );

      it.each(at(["purchase:charged", "purchase:issuing", "purchase:issued"], ["purchase:issuing"]))(
        "fulfilment, %s: Stripe's redelivery finishes it; the keys are shown once",
        async (point) => {
          const contact = `${tag}card-${point.replace(":", "-")}@example.com`;
          const body = { vertical: "travel", payment_method: "card", contact, quantity: 2 };
          let sessionId = "";
          const server = await _crashThenRestart(point, async (url) => {
            const session = await _post(url, "/api/checkout", body);
            expect(session.status).toBe(303);
            sessionId = session.body.session_id;
            return _webhook(url, stripe.event("checkout.session.completed", stripe.pay(sessionId)));
          });
          try {
            const event = stripe.event("checkout.session.completed", stripe.pay(sessionId));
            const redelivered = await _untilSettled(() => _webhook(server.url, event));
            expect(["fulfilled", "duplicate"]).toContain(redelivered.body.outcome);
            const page = await _get(server.url, `/checkout/success?session_id=${sessionId}`, { accept: "application/json" });
            expect(page.body.status).toBe("keys");
            expect(page.body.keys).toHaveLength(2);
            expect((await _get(server.url, `/checkout/success?session_id=${sessionId}`, { accept: "application/json" })).body.status).toBe(
              "already_shown",
            );
            await _expectSettled(server, { keys: page.body.keys.map((k: { key: string }) => k.key), attention: null });
            _expectMailedOnce(contact, page.body.keys);
          } finally {
            await server.kill();
          }
        },
      );

      it.each(at(["purchase:charged", "purchase:issuing", "purchase:issued"], ["purchase:charged"]))(
        "success page, %s: after the restart the page resumes it and shows the keys once; one mail",
        async (point) => {
          const contact = `${tag}page-${point.replace(":", "-")}@example.com`;
          const body = { vertical: "travel", payment_method: "card", contact, quantity: 2 };
          let sessionId = "";
          const server = await _crashThenRestart(point, async (url) => {
            const session = await _post(url, "/api/checkout", body);
            expect(session.status).toBe(303);
            sessionId = session.body.session_id;
            // Paid at Stripe, no webhook yet: the success page confirms it and fulfils, and dies there.
            stripe.pay(sessionId);
            return _get(url, `/checkout/success?session_id=${sessionId}`, { accept: "application/json" });
          });
          try {
            const page = await _untilShown(server, sessionId);
            expect(page.body.status).toBe("keys");
            expect(page.body.keys).toHaveLength(2);
            expect(page.body.mailed_to).toBe(contact);
            expect((await _get(server.url, `/checkout/success?session_id=${sessionId}`, { accept: "application/json" })).body.status).toBe(
              "already_shown",
            );
            // Stripe's webhook arrives late and changes nothing.
            expect((await _webhook(server.url, stripe.event("checkout.session.completed", stripe.pay(sessionId)))).body.outcome).toBe(
              "duplicate",
            );
            await _expectSettled(server, { keys: page.body.keys.map((k: { key: string }) => k.key), attention: null });
            _expectMailedOnce(contact, page.body.keys);
          } finally {
            await server.kill();
          }
        },
      );

      it.each(at(["purchase:charged", "purchase:issuing"], ["purchase:charged"]))(
        "webhook, %s, and no redelivery: reconciliation issues the keys and mails them once; the page shows them",
        async (point) => {
          const contact = `${tag}reconciled-${point.replace(":", "-")}@example.com`;
          const body = { vertical: "travel", payment_method: "card", contact };
          let sessionId = "";
          const server = await _crashThenRestart(point, async (url) => {
            const session = await _post(url, "/api/checkout", body);
            sessionId = session.body.session_id;
            return _webhook(url, stripe.event("checkout.session.completed", stripe.pay(sessionId)));
          });
          try {
            const report = await _reconcileWhenFree(server);
            expect(report.resolved).toEqual([expect.objectContaining({ method: "card", state: "issued" })]);
            const page = await _get(server.url, `/checkout/success?session_id=${sessionId}`, { accept: "application/json" });
            expect(page.body.status).toBe("keys");
            _expectMailedOnce(contact, page.body.keys);
          } finally {
            await server.kill();
          }
        },
      );
    });

    describe("kill -9 where no retry can come back: reconciliation decides", { timeout: 120_000 }, () => {
      it("agent_network without an Idempotency-Key, killed after the charge: refund due and listed; the account's slots are free again", async () => {
        const token = await network.mint({ now: Date.now(), valueMicros: 100_000_000 });
        const body = { vertical: "travel", payment_method: "agent_network", agent_id: "no-idem-charged" };
        const server = await _crashThenRestart("purchase:charged", (url) =>
          _post(url, "/api/checkout", body, { "pay-network-pay-id": token }),
        );
        try {
          expect(network.charges.filter((c) => c.jti === _jti(token))).toHaveLength(1);
          const report = await _reconcileWhenFree(server);
          expect(report.resolved).toEqual([
            expect.objectContaining({ state: "refund_due", payer: expect.objectContaining({ jti: _jti(token) }) }),
          ]);
          expect(report.attention.map((e: { state: string }) => e.state)).toContain("refund_due");
          // Nothing holds the account now: the same agent buys afresh, without proof.
          const again = await _post(server.url, "/api/checkout", body, {
            "pay-network-pay-id": await network.mint({ now: Date.now(), valueMicros: 100_000_000 }),
          });
          expect(again.status).toBe(201);
          const ack = await _post(
            server.url,
            "/api/admin/payments/acknowledge",
            { id: report.resolved[0].id, note: "refunded in the network dashboard" },
            ADMIN,
          );
          expect(ack.status).toBe(200);
          expect((await _get(server.url, "/api/admin/payments", ADMIN)).body.attention.map((e: { id: string }) => e.id)).not.toContain(
            report.resolved[0].id,
          );
        } finally {
          await server.kill();
        }
      });

      // Admin issuance and trials go through the same purchase and store steps as the cycles above;
      // on the cluster they are left out to keep the file's time (each cycle starts two servers).
      if (store === "the embedded store") {
        it("admin issuance killed between its two keys: reconciliation revokes the written one and frees the slots", async () => {
          const body = { vertical: "travel", agent_id: "admin-crash", quantity: 2 };
          const server = await _crashThenRestart("purchase:issuing", (url) => _post(url, "/api/keys", body, ADMIN));
          try {
            const report = await _reconcileWhenFree(server);
            expect(report.resolved).toEqual([expect.objectContaining({ method: "admin", state: "released" })]);
            const full = await _post(server.url, "/api/keys", { ...body, quantity: 5 }, ADMIN);
            expect(full.status).toBe(201);
          } finally {
            await server.kill();
          }
        });

        it("a trial killed after its key was written and before it claimed the agent's slot: the agent still gets a trial", async () => {
          const server = await _crashThenRestart("trial:key-written", (url) => _post(url, "/api/trial", { agent_id: "trial-crash" }));
          try {
            const trial = await _post(server.url, "/api/trial", { agent_id: "trial-crash" });
            expect(trial.status).toBe(200);
            expect(trial.body.key).toMatch(/^svc_trial_/);
            expect((await _post(server.url, "/api/trial", { agent_id: "trial-crash" })).body.code).toBe("trial_exists");
          } finally {
            await server.kill();
          }
        });
      }
    });
  });
}

// --- Internal helpers ---

/**
 * An agent_network purchase killed at `point`, retried: exactly the keys paid for, one charge. Killed
 * inside the charge (its step taken, no answer recorded), it waits for the operator with no key;
 * the operator's finding at the network settles it: paid → the retry gets the keys; not paid →
 * released, nothing charged.
 */
async function _agentNetworkCrash(point: (typeof POINTS)[number]): Promise<void> {
  const token = await network.mint({ now: Date.now(), valueMicros: 100_000_000 });
  const jti = _jti(token);
  const body = { vertical: "travel", payment_method: "agent_network", agent_id: `an-${point}`, quantity: 2 };
  const headers = { "pay-network-pay-id": token, "idempotency-key": `crash-${point}` };
  const server = await _crashThenRestart(point, (url) => _post(url, "/api/checkout", body, headers));
  try {
    let done = await _untilSettled(() => _post(server.url, "/api/checkout", body, headers));
    // At most one charge per token; a charge cut off before the call was never made.
    const charges = network.charges.filter((c) => c.jti === jti);
    expect(charges.length).toBe(point === "purchase:before-charge" ? 0 : 1);
    if (point === "purchase:before-charge" || point === "purchase:after-charge") {
      expect(done.status).toBe(409);
      expect(done.body.code).toBe("payment_unconfirmed");
      expect(done.body).not.toHaveProperty("keys");
      const id = done.body.purchase_id as string;
      const waiting = (await _reconcileWhenFree(server)).attention.find((e: { id: string }) => e.id === id);
      expect(waiting).toMatchObject({ state: "unconfirmed", payer: expect.objectContaining({ jti }) });
      const paid = charges.length === 1;
      const ack = await _post(
        server.url,
        "/api/admin/payments/acknowledge",
        { id, note: "checked with the network", outcome: paid ? "paid" : "not_paid" },
        ADMIN,
      );
      expect(ack.status).toBe(200);
      done = await _post(server.url, "/api/checkout", body, headers);
      if (!paid) {
        expect(done.status).toBe(402);
        expect(done.body).not.toHaveProperty("keys");
        await _expectSettled(server, { keys: [], attention: null });
        expect(network.charges.filter((c) => c.jti === jti)).toHaveLength(0);
        return;
      }
    }
    expect(done.status).toBe(201);
    expect(done.body.keys).toHaveLength(2);
    expect(done.body.receipt).not.toHaveProperty("charge_unconfirmed");
    await _expectSettled(server, { keys: done.body.keys.map((k: { key: string }) => k.key), attention: null });
    // The same request again repeats the answer and charges nothing more.
    const again = await _post(server.url, "/api/checkout", body, headers);
    expect(again.body.keys.map((k: { key: string }) => k.key)).toEqual(done.body.keys.map((k: { key: string }) => k.key));
    expect(network.charges.filter((c) => c.jti === jti)).toHaveLength(charges.length);
  } finally {
    await server.kill();
  }
}

interface Reply {
  status: number;
  body: any;
}

function _env(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    // On the cluster, each crash case gets a namespace of its own (as it gets a folder of its own).
    ...(onCluster ? { REDIS_URL: onCluster.url, REDIS_PREFIX: `crash-${basename(dataDir)}:` } : {}),
    DIST_DIR: dist,
    ADMIN_KEY,
    LOG_LEVEL: "warn",
    // A short lease, so a retry after the restart does not wait long for the dead worker's.
    PAYMENT_TIMEOUT_MS: "1000",
    RECONCILE_INTERVAL_MS: "0",
    ...agentNetworkEnv(network),
    ...x402Env(facilitator),
    ...stripeEnv(stripe),
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    SMTP_FROM: "keys@vkr.test",
  };
}

/** The success page while another worker (the dead one's lease) still holds the purchase. */
async function _untilShown(server: ChildServer, sessionId: string): Promise<Reply> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const page = await _get(server.url, `/checkout/success?session_id=${sessionId}`, { accept: "application/json" });
    if (page.body?.status !== "processing" || Date.now() > deadline) return page;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Exactly one mail to `contact`, carrying exactly the keys shown. */
function _expectMailedOnce(contact: string, shown: Array<{ key: string }>): void {
  const to = mails.filter((m) => m.to === contact);
  expect(to).toHaveLength(1);
  expect([...to[0]!.keys].sort()).toEqual(shown.map((k) => k.key).sort());
}

/** Starts a server that dies at `point` during `act`, then the same state served again. */
async function _crashThenRestart(point: string, act: (url: string) => Promise<unknown>): Promise<ChildServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "vkr-crash-"));
  const doomed = await startChildServer({ ..._env(dataDir), VKR_FAILPOINT: point });
  const died = new Promise<NodeJS.Signals | null>((resolve) => doomed.proc.once("exit", (_code, signal) => resolve(signal)));
  await act(doomed.url).catch(() => undefined);
  expect(await died).toBe("SIGKILL");
  expect(doomed.output()).toContain(`failpoint ${point}`);
  return startChildServer(_env(dataDir));
}

/** Retries while the dead worker's lease still holds the purchase (409 in progress). */
async function _untilSettled(send: () => Promise<Reply>): Promise<Reply> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const reply = await send();
    const inProgress = reply.status === 409 && /in_progress$/.test(reply.body?.code ?? "");
    if (!inProgress || Date.now() > deadline) return reply;
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function _reconcileWhenFree(server: ChildServer): Promise<any> {
  for (let i = 0; i < 60; i++) {
    const report = (await _post(server.url, "/api/admin/payments/reconcile", {}, ADMIN)).body;
    if (!report.open.some((e: { action: string }) => e.action.startsWith("in progress"))) return report;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error("a purchase stayed leased");
}

/** The keys work, reconciliation leaves nothing open, and only an unconfirmed charge is listed. */
async function _expectSettled(server: ChildServer, expected: { keys: string[]; attention: string | null }): Promise<void> {
  for (const key of expected.keys)
    expect((await _get(server.url, "/api/demo?vertical=travel&node=trv-m7", { "x-service-key": key })).status).toBe(200);
  const report = await _reconcileWhenFree(server);
  expect(report.open).toEqual([]);
  expect(report.attention.map((e: { id: string }) => e.id)).toEqual(expected.attention ? [expected.attention] : []);
}

async function _post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    redirect: "manual",
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function _get(url: string, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(url + path, { headers });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function _webhook(url: string, payload: string): Promise<Reply> {
  const res = await fetch(`${url}/api/checkout/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": stripe.sign(payload, Math.floor(Date.now() / 1000)) },
    body: payload,
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

function _jti(token: string): string {
  return (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as { jti: string }).jti;
}
