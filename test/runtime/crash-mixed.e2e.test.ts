/**
 * Crash safety under mixed write load: the bundled server runs as a child on a SQLite
 * DATA_DIR while concurrent workers issue admin keys and trial keys, join waitlists, send
 * Proof-of-Value / Proof-of-Outcome telemetry, demand signals and referrals, and buy keys through
 * the agent payment network and x402 (stand-ins on real ports in this process). It is killed with
 * SIGKILL at a seeded random point, restarted on the same DATA_DIR and checked, several times; the
 * load resumes on each new server with the identities and keys acknowledged before (PoV on earlier
 * trial keys, referrals and PoO from earlier members, re-joins of earlier waitlist entries).
 *
 * Every check compares the restarted server against what was acknowledged (answered 2xx) before
 * the kill, never against "something exists". Reproduce a failure with CRASH_SEED=<seed> (the
 * seed is in the test name): the kill points and each worker's choices repeat, the interleaving
 * of requests does not.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { type SeededRandom, seededRandom, seedFrom } from "../helpers/seeded-random.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "../payments/stand-ins/agent-network.ts";
import { type FacilitatorStandIn, payWith, startFacilitator, type Wallet, x402Env } from "../payments/stand-ins/x402-facilitator.ts";

const SEED = seedFrom(process.env.CRASH_SEED);
const ADMIN = "crash-mixed-admin-secret-123456";
const KILL_CYCLES = 4;
const WORKERS = 6;
/** One inaugural key bought alone costs $19: a token worth exactly that buys once. */
const ONE_KEY_MICROS = 19_000_000;
const WAITLIST_VERTICALS = ["travel", "real-estate", "logistics", "legal"] as const;
const INTEREST_VERTICALS = ["logistics", "hrm", "financial-services"] as const;

// --- What the servers acknowledged (2xx), across every cycle ---

interface AckedKey {
  key: string;
  type: "membership" | "trial";
  via: string;
}
interface Member {
  key: string;
  account: string;
}
interface WaitlistAck {
  vertical: string;
  identity: { agent_id: string } | { contact: string };
  position: number;
}
interface ReferralAck {
  member: Member;
  referred: string;
  credited: number;
}
interface NetworkCheckoutAck {
  token: string;
  jti: string;
  body: Record<string, unknown>;
  idempotencyKey: string | null;
  keys: string[];
}
interface X402CheckoutAck {
  headerName: "x-payment" | "payment-signature";
  header: string;
  body: Record<string, unknown>;
  keys: string[];
}

const acked = {
  keys: [] as AckedKey[],
  members: [] as Member[],
  trials: [] as Array<{ agent: string; vertical: string; key: string }>,
  waitlist: [] as WaitlistAck[],
  /** Highest `waitlist_registered` a join answered, per vertical. */
  waitlistRegistered: new Map<string, number>(),
  interest: [] as Array<{ vertical: string; agent: string }>,
  interestSignals: new Map<string, number>(),
  povTrialKeys: new Set<string>(),
  povEvaluations: 0,
  outcomes: 0,
  outcomeSubmissions: 0,
  referrals: [] as ReferralAck[],
  /** Highest credit balance a referral answered, per account. */
  creditBalance: new Map<string, number>(),
  networkCheckouts: [] as NetworkCheckoutAck[],
  x402Checkouts: [] as X402CheckoutAck[],
};
/** Per-kind count of acknowledged writes, to prove every kind ran. */
const ackedKinds = new Map<string, number>();
/** Answers a live server should never give under this load (5xx, unexpected 4xx, dropped connections). */
const anomalies: string[] = [];

let network: AgentNetworkStandIn;
let facilitator: FacilitatorStandIn;
let wallet: Wallet;
let env: Record<string, string>;

beforeAll(async () => {
  network = await startAgentNetwork();
  facilitator = await startFacilitator();
  wallet = facilitator.wallet();
  env = {
    DIST_DIR: buildContentTo(writeFixtureContent()),
    DATA_DIR: mkdtempSync(join(tmpdir(), "vkr-crash-mixed-")),
    ADMIN_KEY: ADMIN,
    LOG_LEVEL: "warn",
    // Every worker shares one client address; the per-client limits are not under test here.
    TRIALS_PER_CLIENT_HOUR: "1000000",
    NEW_IDENTITIES_PER_CLIENT_DAY: "1000000",
    OUTCOMES_PER_KEY_DAY: "1000000",
    PAYMENT_TIMEOUT_MS: "5000",
    ...agentNetworkEnv(network),
    ...x402Env(facilitator),
  };
});

afterAll(async () => {
  await network?.close();
  await facilitator?.close();
});

describe("kill -9 under mixed write load", () => {
  it(`keeps every acknowledged write across ${KILL_CYCLES} kill cycles (seed ${SEED}; rerun with CRASH_SEED=${SEED})`, {
    timeout: 90_000,
  }, async () => {
    const rnd = seededRandom(SEED);
    let server: ChildServer | undefined = await startChildServer(env);
    try {
      for (let cycle = 1; cycle <= KILL_CYCLES; cycle++) {
        const phase: Phase = { url: server.url, killing: false, acks: 0 };
        const workers = Array.from({ length: WORKERS }, (_, w) =>
          runWorker(phase, seededRandom((SEED ^ Math.imul(cycle * 16 + w + 1, 0x9e3779b9)) >>> 0)),
        );
        // The kill point: after a seeded number of acknowledged writes plus a seeded jitter, so it
        // lands mid-flight whatever the machine's speed.
        const target = rnd.int(12, 40);
        const deadline = Date.now() + 20_000;
        while (phase.acks < target && Date.now() < deadline) await sleep(2);
        await sleep(rnd.int(0, 25));
        phase.killing = true;
        await server.kill("SIGKILL");
        await Promise.all(workers);
        expect(anomalies, `seed ${SEED}, cycle ${cycle}: unexpected answers under load`).toEqual([]);

        server = await startChildServer(env);
        const problems = await verifyAcknowledged(server.url);
        expect(
          problems,
          `seed ${SEED}, cycle ${cycle}: acknowledged writes missing or inconsistent after kill -9 (${phase.acks} acks this cycle)`,
        ).toEqual([]);
      }
      for (const kind of OP_KINDS) expect(ackedKinds.get(kind) ?? 0, `seed ${SEED}: no acknowledged ${kind}`).toBeGreaterThan(0);

      await server.kill("SIGTERM");
      expect(server.proc.exitCode, server.output().slice(-2000)).toBe(0);
      server = undefined;
    } finally {
      await server?.kill("SIGKILL");
    }
  });
});

// --- The load ---

interface Phase {
  url: string;
  /** Set just before SIGKILL: a failed connection from then on is the kill, not an anomaly. */
  killing: boolean;
  acks: number;
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

const OP_KINDS = [
  "admin_keys",
  "trial",
  "pov",
  "outcome",
  "waitlist",
  "interest",
  "referral",
  "checkout_agent_network",
  "checkout_http402",
] as const;
type OpKind = (typeof OP_KINDS)[number];

let serial = 0;
const fresh = (prefix: string) => `${prefix}-${SEED.toString(36)}-${++serial}`;

async function runWorker(phase: Phase, rnd: SeededRandom): Promise<void> {
  // Each worker walks its own shuffled round of every kind, so every kind runs in every cycle.
  let round: OpKind[] = [];
  while (!phase.killing) {
    if (round.length === 0) round = rnd.shuffle(OP_KINDS);
    await OPS[round.pop()!](phase, rnd);
  }
}

const OPS: Record<OpKind, (phase: Phase, rnd: SeededRandom) => Promise<void>> = {
  async admin_keys(phase, rnd) {
    const agent = fresh("member");
    const res = await call(phase, "admin_keys", "/api/keys", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}` },
      json: {
        vertical: rnd.pick(["travel", "ai-compliance", "all"]),
        quantity: rnd.int(1, 2),
        agent_id: agent,
        permanent: rnd.next() < 0.3,
      },
    });
    if (!expectStatus("admin_keys", res, 201)) return;
    const keys = (res.body.keys as Array<{ key: string }>).map((k) => k.key);
    for (const key of keys) acked.keys.push({ key, type: "membership", via: "admin" });
    acked.members.push({ key: keys[0]!, account: agent });
    ack(phase, "admin_keys");
  },

  async trial(phase, rnd) {
    const agent = fresh("trial-agent");
    const vertical = rnd.pick(["ai-compliance", "travel"]);
    const res = await call(phase, "trial", "/api/trial", { method: "POST", json: { agent_id: agent, vertical } });
    if (!expectStatus("trial", res, 200)) return;
    acked.keys.push({ key: res.body.key, type: "trial", via: "trial" });
    acked.trials.push({ agent, vertical, key: res.body.key });
    ack(phase, "trial");
  },

  async pov(phase, rnd) {
    if (acked.trials.length === 0) return OPS.trial(phase, rnd);
    const trial = rnd.pick(acked.trials);
    const res = await call(phase, "pov", "/api/telemetry/pov", {
      method: "POST",
      headers: { "x-service-key": trial.key },
      json: {
        trial_key: trial.key,
        confidence_score: rnd.int(0, 100) / 100,
        intent_to_subscribe: rnd.next() < 0.5,
        review: `crash-mixed review ${serial}`,
      },
    });
    if (!expectStatus("pov", res, 200)) return;
    acked.povTrialKeys.add(trial.key);
    acked.povEvaluations = Math.max(acked.povEvaluations, res.body.evaluations);
    ack(phase, "pov");
  },

  async outcome(phase, rnd) {
    if (acked.members.length === 0) return OPS.admin_keys(phase, rnd);
    const member = rnd.pick(acked.members);
    const res = await call(phase, "outcome", "/api/telemetry", {
      method: "POST",
      headers: { "x-service-key": member.key },
      json: {
        confidence_score: rnd.int(0, 100) / 100,
        outcome: rnd.pick(["succeeded", "partially_succeeded", "failed"]),
        tasks_completed: rnd.int(0, 50),
      },
    });
    if (!expectStatus("outcome", res, 200)) return;
    acked.outcomes++;
    acked.outcomeSubmissions = Math.max(acked.outcomeSubmissions, res.body.aggregate.submissions);
    ack(phase, "outcome");
  },

  async waitlist(phase, rnd) {
    // Now and then a re-join of an entry acknowledged earlier (possibly before a kill).
    if (acked.waitlist.length > 0 && rnd.next() < 0.15) {
      const earlier = rnd.pick(acked.waitlist);
      const res = await call(phase, "waitlist", "/api/waitlist", {
        method: "POST",
        json: { vertical: earlier.vertical, ...earlier.identity },
      });
      if (!expectStatus("waitlist", res, 200)) return;
      if (res.body.position !== earlier.position || res.body.already_registered !== true) {
        anomalies.push(
          `waitlist re-join of ${JSON.stringify(earlier)} answered position ${res.body.position}, already_registered ${res.body.already_registered}`,
        );
      }
      return;
    }
    const vertical = rnd.pick(WAITLIST_VERTICALS);
    const identity = rnd.next() < 0.8 ? { agent_id: fresh("wl-agent") } : { contact: `${fresh("wl")}@example.com` };
    const res = await call(phase, "waitlist", "/api/waitlist", { method: "POST", json: { vertical, ...identity } });
    if (!expectStatus("waitlist", res, 200)) return;
    const position = res.body.position as number;
    if (res.body.already_registered) anomalies.push(`waitlist: a new identity ${JSON.stringify(identity)} was answered already_registered`);
    const taken = acked.waitlist.find((w) => w.vertical === vertical && w.position === position);
    if (taken)
      anomalies.push(
        `waitlist ${vertical}: position ${position} given to ${JSON.stringify(identity)} was already acknowledged to ${JSON.stringify(taken.identity)}`,
      );
    acked.waitlist.push({ vertical, identity, position });
    acked.waitlistRegistered.set(vertical, Math.max(acked.waitlistRegistered.get(vertical) ?? 0, res.body.waitlist_registered));
    ack(phase, "waitlist");
  },

  async interest(phase, rnd) {
    const vertical = rnd.pick(INTEREST_VERTICALS);
    const agent = fresh("interested");
    const res = await call(phase, "interest", "/api/interest", {
      method: "POST",
      json: { vertical, agent_id: agent, use_case: "crash-mixed load" },
    });
    if (!expectStatus("interest", res, 200)) return;
    if (res.body.counted !== true) anomalies.push(`interest: a new agent ${agent} for ${vertical} was not counted`);
    acked.interest.push({ vertical, agent });
    acked.interestSignals.set(vertical, Math.max(acked.interestSignals.get(vertical) ?? 0, res.body.signals));
    ack(phase, "interest");
  },

  async referral(phase, rnd) {
    if (acked.members.length === 0) return OPS.admin_keys(phase, rnd);
    const member = rnd.pick(acked.members);
    const referred = fresh("referred");
    const res = await call(phase, "referral", "/api/referral", {
      method: "POST",
      headers: { "x-service-key": member.key },
      json: {
        referring_key: member.key,
        referred_agent_id: referred,
        method: rnd.pick(["agent-to-agent", "volume-broadcast", "principal-redirect"]),
      },
    });
    if (!expectStatus("referral", res, 200)) return;
    acked.referrals.push({ member, referred, credited: res.body.referral.credited_usd_micros });
    acked.creditBalance.set(member.account, Math.max(acked.creditBalance.get(member.account) ?? 0, res.body.credit_balance.usd_micros));
    ack(phase, "referral");
  },

  async checkout_agent_network(phase, rnd) {
    const agent = fresh("net-buyer");
    const token = await network.mint({ valueMicros: ONE_KEY_MICROS });
    const idempotencyKey = rnd.next() < 0.5 ? fresh("idem") : null;
    const body = { vertical: "travel", payment_method: "agent_network", agent_id: agent };
    const res = await call(phase, "checkout_agent_network", "/api/checkout", {
      method: "POST",
      headers: { "pay-network-pay-id": token, ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}) },
      json: body,
    });
    if (!expectStatus("checkout_agent_network", res, 201)) return;
    const keys = (res.body.keys as Array<{ key: string }>).map((k) => k.key);
    for (const key of keys) acked.keys.push({ key, type: "membership", via: "checkout agent_network" });
    acked.members.push({ key: keys[0]!, account: agent });
    acked.networkCheckouts.push({ token, jti: jtiOf(token), body, idempotencyKey, keys });
    ack(phase, "checkout_agent_network");
  },

  async checkout_http402(phase, rnd) {
    const agent = fresh("x402-buyer");
    const body = { vertical: "travel", payment_method: "http402", agent_id: agent };
    const required = await call(phase, "checkout_http402", "/api/checkout", { method: "POST", json: body });
    if (!expectStatus("checkout_http402 (requirements)", required, 402)) return;
    const version = rnd.pick([1, 2] as const);
    const requirement =
      version === 1
        ? required.body.accepts[0]
        : JSON.parse(Buffer.from(required.headers.get("payment-required")!, "base64").toString("utf8")).accepts[0];
    const header = await payWith(wallet, version, requirement);
    const headerName = version === 1 ? "x-payment" : "payment-signature";
    const res = await call(phase, "checkout_http402", "/api/checkout", { method: "POST", headers: { [headerName]: header }, json: body });
    if (!expectStatus("checkout_http402", res, 201)) return;
    const keys = (res.body.keys as Array<{ key: string }>).map((k) => k.key);
    for (const key of keys) acked.keys.push({ key, type: "membership", via: "checkout http402" });
    acked.members.push({ key: keys[0]!, account: agent });
    acked.x402Checkouts.push({ headerName, header, body, keys });
    ack(phase, "checkout_http402");
  },
};

function ack(phase: Phase, kind: OpKind): void {
  phase.acks++;
  ackedKinds.set(kind, (ackedKinds.get(kind) ?? 0) + 1);
}

/** A request under load: null when the connection failed (an anomaly unless the kill caused it). */
async function call(phase: Phase, kind: string, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Answer | null> {
  try {
    return await request(phase.url, path, init);
  } catch (error) {
    if (!phase.killing) anomalies.push(`${kind}: connection failed while the server was up: ${(error as Error).message}`);
    return null;
  }
}

function expectStatus(kind: string, res: Answer | null, status: number): res is Answer {
  if (res === null) return false;
  if (res.status === status) return true;
  anomalies.push(`${kind}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return false;
}

// --- The checks after each restart ---

async function verifyAcknowledged(url: string): Promise<string[]> {
  const problems: string[] = [];
  const get = (path: string, init: RequestInit & { json?: unknown } = {}) => request(url, path, init);

  // Keys from every source verify, with their type.
  await eachLimit(acked.keys, 8, async (k) => {
    const res = await get("/api/verify", { headers: { "x-service-key": k.key } });
    if (res.status !== 200 || res.body.valid !== true || res.body.type !== k.type)
      problems.push(`key ${k.key.slice(0, 14)}… (${k.via}) → ${res.status} ${JSON.stringify(res.body)}`);
  });

  // A trial acknowledged to an agent still blocks a second one.
  await eachLimit(acked.trials, 8, async (t) => {
    const res = await get("/api/trial", { method: "POST", json: { agent_id: t.agent, vertical: t.vertical } });
    if (res.status !== 409 || res.body.code !== "trial_exists")
      problems.push(`trial of ${t.agent}: a second trial → ${res.status} ${res.body.code ?? ""}`);
  });

  // Waitlist: every acknowledged entry keeps its position, positions are unique per vertical, the
  // counts cover them, and the next new entry gets a position nobody holds.
  for (const vertical of WAITLIST_VERTICALS) {
    const positions = acked.waitlist.filter((w) => w.vertical === vertical).map((w) => w.position);
    if (new Set(positions).size !== positions.length)
      problems.push(`waitlist ${vertical}: duplicate acknowledged positions ${positions.join(",")}`);
  }
  await eachLimit(acked.waitlist, 8, async (w) => {
    const res = await get("/api/waitlist", { method: "POST", json: { vertical: w.vertical, ...w.identity } });
    if (res.status !== 200 || res.body.position !== w.position || res.body.already_registered !== true) {
      problems.push(
        `waitlist ${w.vertical} ${JSON.stringify(w.identity)}: acknowledged position ${w.position}, re-join → ${res.status} position ${res.body.position} already_registered ${res.body.already_registered}`,
      );
    }
  });
  const [overview, status] = await Promise.all([get("/api/waitlist"), get("/api/status")]);
  for (const vertical of WAITLIST_VERTICALS) {
    const mine = acked.waitlist.filter((w) => w.vertical === vertical);
    const floor = Math.max(mine.length, ...mine.map((w) => w.position), acked.waitlistRegistered.get(vertical) ?? 0);
    const listed = overview.body.verticals.find((v: { vertical: string }) => v.vertical === vertical)?.waitlist_registered ?? -1;
    if (listed < floor) problems.push(`GET /api/waitlist ${vertical}: waitlist_registered ${listed} < acknowledged ${floor}`);
    const reported = status.body.verticals[vertical]?.waitlist_registered ?? -1;
    if (reported < floor) problems.push(`GET /api/status ${vertical}: waitlist_registered ${reported} < acknowledged ${floor}`);
    const probe = { agent_id: fresh("wl-probe") };
    const joined = await get("/api/waitlist", { method: "POST", json: { vertical, ...probe } });
    const highest = Math.max(0, ...mine.map((w) => w.position));
    if (joined.status !== 200 || joined.body.already_registered !== false || joined.body.position <= highest) {
      problems.push(
        `waitlist ${vertical}: a new entry after restart → ${joined.status} position ${joined.body.position}, acknowledged positions go up to ${highest}`,
      );
    }
    if (joined.status === 200) acked.waitlist.push({ vertical, identity: probe, position: joined.body.position });
  }

  // Seats: every member account acknowledged holds one.
  const accounts = new Set(acked.members.map((m) => m.account.toLowerCase()));
  if (overview.body.seats_registered < accounts.size)
    problems.push(`GET /api/waitlist: seats_registered ${overview.body.seats_registered} < ${accounts.size} acknowledged member accounts`);
  if (status.body.total_inaugural_registered < accounts.size)
    problems.push(
      `GET /api/status: total_inaugural_registered ${status.body.total_inaugural_registered} < ${accounts.size} acknowledged member accounts`,
    );

  // Proof-of-Outcome: the aggregate covers every acknowledged submission and every count answered.
  const outcomeFloor = Math.max(acked.outcomes, acked.outcomeSubmissions);
  if (overview.body.progression.outcome_submissions < outcomeFloor)
    problems.push(`GET /api/waitlist: outcome_submissions ${overview.body.progression.outcome_submissions} < acknowledged ${outcomeFloor}`);

  // Proof-of-Value: one evaluation per acknowledged trial key, and a repeat replaces it.
  const povFloor = Math.max(acked.povTrialKeys.size, acked.povEvaluations);
  const pov = await get("/api/telemetry/pov");
  if (pov.body.evaluations < povFloor)
    problems.push(`GET /api/telemetry/pov: evaluations ${pov.body.evaluations} < acknowledged ${povFloor}`);
  if (status.body.community_evidence.trial_evaluations < povFloor)
    problems.push(`GET /api/status: trial_evaluations ${status.body.community_evidence.trial_evaluations} < acknowledged ${povFloor}`);
  await eachLimit([...acked.povTrialKeys], 8, async (key) => {
    const res = await get("/api/telemetry/pov", {
      method: "POST",
      headers: { "x-service-key": key },
      json: { trial_key: key, confidence_score: 0.5 },
    });
    if (res.status !== 200 || res.body.replaced !== true)
      problems.push(`PoV of ${key.slice(0, 16)}…: a repeat → ${res.status} replaced ${res.body.replaced}`);
  });

  // Demand signals: each acknowledged agent is still counted (a repeat is not), and the ranking covers them.
  await eachLimit(acked.interest, 8, async (s) => {
    const res = await get("/api/interest", { method: "POST", json: { vertical: s.vertical, agent_id: s.agent } });
    if (res.status !== 200 || res.body.counted !== false)
      problems.push(`interest ${s.vertical}/${s.agent}: a repeat → ${res.status} counted ${res.body.counted}`);
  });
  const summary = await get("/api/interest/summary");
  for (const vertical of INTEREST_VERTICALS) {
    const floor = Math.max(acked.interest.filter((s) => s.vertical === vertical).length, acked.interestSignals.get(vertical) ?? 0);
    const signals = summary.body.verticals.find((v: { vertical: string }) => v.vertical === vertical)?.signals ?? -1;
    if (signals < floor) problems.push(`GET /api/interest/summary ${vertical}: signals ${signals} < acknowledged ${floor}`);
  }

  // Referrals: each referred agent stays referred, and each account keeps at least the credit it was told.
  await eachLimit(acked.referrals, 8, async (r) => {
    const res = await get("/api/referral", {
      method: "POST",
      headers: { "x-service-key": r.member.key },
      json: { referring_key: r.member.key, referred_agent_id: r.referred },
    });
    if (res.status !== 409 || res.body.code !== "already_referred")
      problems.push(`referral of ${r.referred}: a repeat → ${res.status} ${res.body.code ?? ""}`);
  });
  const referrers = [...new Set(acked.referrals.map((r) => r.member.account))];
  await eachLimit(referrers, 8, async (account) => {
    const credited = acked.referrals.filter((r) => r.member.account === account).reduce((a, r) => a + r.credited, 0);
    const floor = Math.max(credited, acked.creditBalance.get(account) ?? 0);
    // The member's own key shows its account's credit balance.
    const member = acked.referrals.find((r) => r.member.account === account)!.member;
    const res = await get("/api/keys", { headers: { "x-service-key": member.key } });
    const balance = res.body?.credits?.balance_usd_micros;
    if (res.status !== 200 || typeof balance !== "number" || balance < floor)
      problems.push(`credit of ${account}: ${res.status} balance ${balance} < acknowledged ${floor}`);
  });

  // Agent-network checkouts: the saved answer under an Idempotency-Key comes back; a replayed token
  // is refused by our own ledger (not merely by the network) and never charged twice.
  await eachLimit(acked.networkCheckouts, 4, async (c) => {
    if (c.idempotencyKey) {
      const again = await get("/api/checkout", {
        method: "POST",
        headers: { "pay-network-pay-id": c.token, "idempotency-key": c.idempotencyKey },
        json: c.body,
      });
      const keys = again.body?.keys?.map((k: { key: string }) => k.key);
      if (again.status !== 201 || again.headers.get("idempotent-replayed") !== "true" || JSON.stringify(keys) !== JSON.stringify(c.keys)) {
        problems.push(
          `checkout idempotency-key ${c.idempotencyKey}: replay → ${again.status} keys ${JSON.stringify(keys)} (acknowledged ${JSON.stringify(c.keys)})`,
        );
      }
    }
    // For a new account, so the account proof is not what refuses it: the token's ledger must.
    const replay = await get("/api/checkout", {
      method: "POST",
      headers: { "pay-network-pay-id": c.token },
      json: { ...c.body, agent_id: `${String(c.body.agent_id)}-replay` },
    });
    if (replay.status !== 402 || replay.body.code !== "payment_token_depleted")
      problems.push(`token ${c.jti}: replay → ${replay.status} ${replay.body.code ?? ""} (want 402 payment_token_depleted)`);
    const charges = network.charges.filter((ch) => ch.jti === c.jti).length;
    if (charges !== 1) problems.push(`token ${c.jti}: charged ${charges} times`);
  });

  // x402 checkouts: the same payment gets the same saved 201, and is not settled again.
  const settledBefore = facilitator.settled.length;
  await eachLimit(acked.x402Checkouts, 4, async (c) => {
    const replay = await get("/api/checkout", { method: "POST", headers: { [c.headerName]: c.header }, json: c.body });
    const keys = replay.body?.keys?.map((k: { key: string }) => k.key);
    if (replay.status !== 201 || JSON.stringify(keys) !== JSON.stringify(c.keys))
      problems.push(
        `x402 payment replay → ${replay.status} ${replay.body.code ?? ""} keys ${JSON.stringify(keys)} (acknowledged ${JSON.stringify(c.keys)})`,
      );
  });
  if (facilitator.settled.length !== settledBefore)
    problems.push(`x402 replays settled ${facilitator.settled.length - settledBefore} more payments`);

  return problems;
}

// --- Plumbing ---

async function request(base: string, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  const res = await fetch(base + path, { ...init, headers, body });
  const text = await res.text();
  let parsed: any = text;
  if (res.headers.get("content-type")?.includes("json") && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed };
}

async function eachLimit<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

function jtiOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as { jti: string }).jti;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
