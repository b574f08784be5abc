/**
 * The access matrix of free and gated reads, cell by cell, over real HTTP on REST (`GET /api/demo`) and MCP
 * (`get_node` / `get_index`): every caller kind (none, trial ai-compliance, trial travel, trial ecommerce, a
 * membership of each vertical with content, `all`, an invalid, a revoked and an expired key, a
 * per-use pay token) against every content kind (an index, a fully open node, a node the caller
 * unlocks, a gated node it does not, and for refused keys a node with no free view). Each cell asserts the status, the layers served and the
 * metering: the key's usage (GET /api/keys) or the token's charges before and after.
 *
 * The spec's words: "The index layer is always free"; the fully open verticals need "no key, no
 * payment"; a trial key "unlocks all 4 content layers across the 23 AI compliance modules, or the
 * first 5 travel modules"; per-use "$0.002 per content node request".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { rpc } from "../mcp/_setup.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "../payments/stand-ins/agent-network.ts";

type Target = { vertical: string; node: string | null };
type Expected = "full" | "locked" | "index" | 401;

interface CallerKind {
  name: string;
  /** Sent as X-Service-Key, or as pay-network-pay-id for the token. */
  credential: () => string | null;
  kind: "none" | "key" | "token" | "refused";
  /** A gated node this caller unlocks, and one it does not (null: no such node for this caller). */
  covered: Target | null;
  uncovered: Target | null;
  /** For refused keys: the problem code. */
  code?: string;
}

const INDEX: Target = { vertical: "travel", node: null };
const OPEN: Target = { vertical: "a2a-handoff", node: "a2a-one" };
/** A node of a paid vertical whose index is not free: no free view at all. */
const PAID: Target = { vertical: "legal", node: "legal-one" };

let svc: TestService;
let network: AgentNetworkStandIn;
const creds: Record<string, string> = {};

const CALLERS: CallerKind[] = [
  { name: "none", credential: () => null, kind: "none", covered: null, uncovered: { vertical: "travel", node: "trv-m6" } },
  {
    name: "trial ai-compliance",
    credential: () => creds.trialAic!,
    kind: "key",
    covered: { vertical: "ai-compliance", node: "aic-second" },
    uncovered: { vertical: "travel", node: "trv-m1" },
  },
  {
    name: "trial travel",
    credential: () => creds.trialTravel!,
    kind: "key",
    covered: { vertical: "travel", node: "trv-m2" },
    uncovered: { vertical: "travel", node: "trv-m6" },
  },
  {
    name: "trial ecommerce",
    credential: () => creds.trialEcommerce!,
    kind: "key",
    covered: { vertical: "ecommerce", node: "ecom-m5" },
    uncovered: { vertical: "ecommerce", node: "ecom-m6" },
  },
  {
    name: "membership ai-compliance",
    credential: () => creds["member-ai-compliance"]!,
    kind: "key",
    covered: { vertical: "ai-compliance", node: "aic-start" },
    uncovered: { vertical: "travel", node: "trv-m1" },
  },
  {
    name: "membership travel",
    credential: () => creds["member-travel"]!,
    kind: "key",
    covered: { vertical: "travel", node: "trv-m7" },
    uncovered: { vertical: "real-estate", node: "re-one" },
  },
  {
    name: "membership real-estate",
    credential: () => creds["member-real-estate"]!,
    kind: "key",
    covered: { vertical: "real-estate", node: "re-two" },
    uncovered: { vertical: "travel", node: "trv-m3" },
  },
  {
    name: "membership ecommerce",
    credential: () => creds["member-ecommerce"]!,
    kind: "key",
    covered: { vertical: "ecommerce", node: "ecom-m6" },
    uncovered: { vertical: "travel", node: "trv-m1" },
  },
  {
    name: "membership legal",
    credential: () => creds["member-legal"]!,
    kind: "key",
    covered: { vertical: "legal", node: "legal-one" },
    uncovered: { vertical: "real-estate", node: "re-one" },
  },
  {
    name: "all",
    credential: () => creds["member-all"]!,
    kind: "key",
    covered: { vertical: "real-estate", node: "re-one" },
    uncovered: null,
  },
  {
    name: "invalid key",
    credential: () => "svc_live_" + "A".repeat(22),
    kind: "refused",
    code: "key_invalid",
    covered: null,
    uncovered: { vertical: "travel", node: "trv-m1" },
  },
  {
    name: "revoked key",
    credential: () => creds.revoked!,
    kind: "refused",
    code: "key_revoked",
    covered: null,
    uncovered: { vertical: "travel", node: "trv-m1" },
  },
  {
    name: "expired key",
    credential: () => creds.expired!,
    kind: "refused",
    code: "key_expired",
    covered: null,
    uncovered: { vertical: "travel", node: "trv-m1" },
  },
  {
    name: "per-use token",
    credential: () => creds.token!,
    kind: "token",
    covered: { vertical: "travel", node: "trv-m5" },
    uncovered: null,
  },
  {
    name: "per-use token on ecommerce",
    credential: () => creds.token!,
    kind: "token",
    covered: { vertical: "ecommerce", node: "ecom-m6" },
    uncovered: null,
  },
];

beforeAll(async () => {
  network = await startAgentNetwork();
  svc = await startTestService(buildContentTo(writeFixtureContent()), {
    ...agentNetworkEnv(network),
    PER_USE_CHARGE_BATCH_MS: "0",
    ANON_RATE_PER_MINUTE: "100000",
    TRIALS_PER_CLIENT_HOUR: "1000",
  });
  const admin = { authorization: `Bearer ${ADMIN_KEY}` };
  const issue = async (vertical: string) =>
    (await svc.request("/api/keys", { method: "POST", headers: admin, json: { vertical } })).body.keys[0].key as string;
  const trial = async (agent: string, vertical: string) =>
    (await svc.request("/api/trial", { method: "POST", json: { agent_id: agent, vertical } })).body.key as string;
  // The expired trial key first: the clock then moves past its 24 hours, before the live keys exist.
  creds.expired = await trial("matrix-expired", "travel");
  svc.clock.advance(25 * 3_600_000);
  creds.revoked = await issue("travel");
  expect((await svc.request("/api/admin/keys/revoke", { method: "POST", headers: admin, json: { key: creds.revoked } })).status).toBe(200);
  creds.trialAic = await trial("matrix-aic", "ai-compliance");
  creds.trialTravel = await trial("matrix-travel", "travel");
  creds.trialEcommerce = await trial("matrix-ecommerce", "ecommerce");
  for (const vertical of ["ai-compliance", "travel", "real-estate", "ecommerce", "legal", "all"])
    creds[`member-${vertical}`] = await issue(vertical);
  creds.token = await network.mint({ now: svc.clock.now(), valueMicros: 1_000_000 });
});
afterAll(async () => {
  await svc?.close();
  await network?.close();
});

describe.each(CALLERS)("caller: $name", (caller) => {
  // A cell whose target is null does not exist for this caller (none unlocks nothing; `all` and a
  // pay token unlock everything; a refused key unlocks nothing).
  const cells = (
    [
      ["index", INDEX, "index"],
      ["fully open node", OPEN, "full"],
      ["covered node", caller.covered, "full"],
      // A refused key reads the free view where there is one (with the warning), and keeps its 401 where there is none.
      ["uncovered node", caller.uncovered, "locked"],
      ["node with no free view", caller.kind === "refused" ? PAID : null, 401],
    ] as Array<[string, Target | null, Expected]>
  ).filter((cell): cell is [string, Target, Expected] => cell[1] !== null);

  it.each(cells)("%s", async (_content, target, expected) => {
    const gated = target.node !== null && target.vertical !== OPEN.vertical;
    // A gated read counts once per transport; everything else is free.
    const counted = expected === "full" && gated && (caller.kind === "key" || caller.kind === "token") ? 1 : 0;

    const before = await _metered(caller);
    const rest = await svc.request(`/api/demo?vertical=${target.vertical}${target.node ? `&node=${target.node}` : ""}`, {
      headers: _headers(caller),
    });
    _assertView(rest.status, rest.body, expected, caller, target.vertical);
    expect(rest.headers.get("ratelimit") !== null, "RateLimit headers only on a metered key read").toBe(
      counted === 1 && caller.kind === "key",
    );
    expect(await _metered(caller)).toBe(before + counted);

    const tool = target.node
      ? { name: "get_node", arguments: { vertical: target.vertical, node: target.node } }
      : { name: "get_index", arguments: { vertical: target.vertical } };
    const result = (await rpc(svc, "tools/call", tool, _headers(caller))).result;
    if (expected === 401) {
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain(caller.code);
    } else {
      expect(result.isError).toBeFalsy();
      _assertView(200, result.structuredContent, expected, caller, target.vertical);
    }
    expect(await _metered(caller)).toBe(before + 2 * counted);
  });
});

// --- Internal helpers ---

function _headers(caller: CallerKind): Record<string, string> {
  const credential = caller.credential();
  if (credential === null) return {};
  return caller.kind === "token" ? { "pay-network-pay-id": credential } : { "x-service-key": credential };
}

/** What counts for this caller: a key's calls this hour, or the token's charges; 0 for the others. */
async function _metered(caller: CallerKind): Promise<number> {
  if (caller.kind === "key")
    return (await svc.request("/api/keys", { headers: { "x-service-key": caller.credential()! } })).body.usage.hour;
  if (caller.kind === "token") {
    const jti = JSON.parse(Buffer.from(caller.credential()!.split(".")[1]!, "base64url").toString()).jti;
    return network.charges.filter((c) => c.jti === jti).length;
  }
  return 0;
}

function _assertView(status: number, body: any, expected: Expected, caller: CallerKind, vertical: string): void {
  if (expected === 401) {
    expect(status).toBe(401);
    expect(body.code).toBe(caller.code);
    return;
  }
  expect(status).toBe(200);
  if (caller.kind === "refused") expect(body.credential_problem.code).toBe(caller.code);
  else expect(body.credential_problem).toBeUndefined();
  if (expected === "index") {
    expect(body.nodes.length).toBeGreaterThan(0);
    expect(body.node).toBeUndefined();
    return;
  }
  if (expected === "full") {
    expect(body.node.locked_layers).toEqual([]);
    expect(Object.keys(body.node.layers).sort()).toEqual(["action", "directive", "logic", "skill"]);
    expect(body.unlock).toBeUndefined();
    return;
  }
  expect(body.node.layers).toEqual({});
  expect(body.node.locked_layers).toEqual(["logic", "directive", "skill", "action"]);
  expect(body.unlock.membership.vertical).toBe(vertical);
}
