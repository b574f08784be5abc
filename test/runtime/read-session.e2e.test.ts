/**
 * The shared read session (runtime/domain/access/read-session.ts), over real HTTP: the same read through
 * every path that reads content (GET /api/demo, MCP get_node and resources/read, POST
 * /api/evaluate and the MCP evaluate_rules tool, search over REST, MCP and the pages, the node
 * pages of /browse) is decided and metered identically: a gated read with the key that unlocks it
 * consumes exactly one call of the key's windows on each path, a free view consumes none, and a
 * refused read carries the same problem code everywhere and consumes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { issueKey, rpc, trialKey } from "../mcp/_setup.ts";

let svc: TestService;
let member: string;
let trial: string;

beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()));
  member = await issueKey(svc, "travel");
  trial = await trialKey(svc, "agent-read-session", "travel");
});
afterAll(() => svc?.close());

interface Outcome {
  /** "ok", or the problem code of a refusal. */
  code: string;
  /** The view served, when the answer shows it. */
  locked?: boolean;
}

type Path = (key: string, vertical: string, node: string) => Promise<Outcome>;

const problemCode = (text: string) => /"code":"([a-z_]+)"/.exec(text)?.[1] ?? "unparsed";
/** A node answer shows the locked view when it names layers it left out. */
const isLocked = (answer: { node: { locked_layers: string[] } }) => answer.node.locked_layers.length > 0;

/** Every path that reads one node, each answering in its own shape. */
const PATHS: Record<string, Path> = {
  "GET /api/demo": async (key, vertical, node) => {
    const res = await fetch(`${svc.url}/api/demo?vertical=${vertical}&node=${node}`, { headers: { "x-service-key": key } });
    const body = await res.json();
    return res.status === 200 ? { code: "ok", locked: isLocked(body) } : { code: body.code };
  },
  "MCP get_node": async (key, vertical, node) => {
    const { result } = await rpc(
      svc,
      "tools/call",
      { name: "get_node", arguments: { vertical, node, lean: false } },
      { "x-service-key": key },
    );
    if (result.isError) return { code: problemCode(result.content[0].text) };
    return { code: "ok", locked: isLocked(result.structuredContent) };
  },
  "MCP resources/read": async (key, vertical, node) => {
    const answer = await rpc(svc, "resources/read", { uri: `vkr://${vertical}/${node}` }, { "x-service-key": key });
    if (answer.error) return { code: answer.error.data?.code ?? "unparsed" };
    return { code: "ok", locked: isLocked(JSON.parse(answer.result.contents[0].text)) };
  },
  "page /browse/:vertical/:node": async (key, vertical, node) => {
    const res = await fetch(`${svc.url}/browse/${vertical}/${node}.md`, { headers: { "x-service-key": key } });
    const text = await res.text();
    return res.status === 200 ? { code: "ok", locked: !text.includes(`Logic text of ${node}`) } : { code: problemCode(text) };
  },
};

/** The paths that need the full layers (rules): a locked view is refused there. */
const EVALUATE: Record<string, Path> = {
  "POST /api/evaluate": async (key, vertical, node) => {
    const res = await fetch(`${svc.url}/api/evaluate`, {
      method: "POST",
      headers: { "x-service-key": key, "content-type": "application/json" },
      body: JSON.stringify({ vertical, node, facts: {} }),
    });
    const body = await res.json();
    return { code: res.status === 200 ? "ok" : body.code };
  },
  "MCP evaluate_rules": async (key, vertical, node) => {
    const { result } = await rpc(
      svc,
      "tools/call",
      { name: "evaluate_rules", arguments: { vertical, node, facts: {} } },
      { "x-service-key": key },
    );
    return { code: result.isError ? problemCode(result.content[0].text) : "ok" };
  },
};

/** Searches over one vertical: a gated search (snippets may quote unlocked layers) is one retrieval. */
const SEARCH: Record<string, (key: string, vertical: string) => Promise<Outcome>> = {
  "GET /api/search": async (key, vertical) => {
    const res = await fetch(`${svc.url}/api/search?q=fixture&vertical=${vertical}`, { headers: { "x-service-key": key } });
    return { code: res.status === 200 ? "ok" : (await res.json()).code };
  },
  "MCP search": async (key, vertical) => {
    const { result } = await rpc(svc, "tools/call", { name: "search", arguments: { q: "fixture", vertical } }, { "x-service-key": key });
    return { code: result.isError ? problemCode(result.content[0].text) : "ok" };
  },
  "page /browse/search": async (key, vertical) => {
    const res = await fetch(`${svc.url}/browse/search?q=fixture&vertical=${vertical}`, { headers: { "x-service-key": key } });
    return { code: res.status === 200 ? "ok" : problemCode(await res.text()) };
  },
};

async function hourUsed(key: string): Promise<number> {
  const res = await svc.request("/api/keys", { headers: { "x-service-key": key } });
  return res.body.usage.hour as number;
}

/** The outcome of one call and the hour-window calls it consumed. */
async function measure(key: string, run: () => Promise<Outcome>): Promise<Outcome & { consumed: number }> {
  const before = await hourUsed(key);
  const outcome = await run();
  return { ...outcome, consumed: (await hourUsed(key)) - before };
}

describe("one read session for every content path", () => {
  it("a gated node read with the key that unlocks it: the full view and exactly one call, on every path", async () => {
    for (const [name, path] of Object.entries({ ...PATHS, ...EVALUATE })) {
      expect({ name, ...(await measure(member, () => path(member, "travel", "trv-m1"))) }).toMatchObject({ name, code: "ok", consumed: 1 });
    }
    for (const [name, path] of Object.entries(PATHS))
      expect({ name, ...(await measure(member, () => path(member, "travel", "trv-m1"))) }).toMatchObject({ name, locked: false });
  });

  it("a gated search with that key: one call on REST, MCP and the page alike", async () => {
    for (const [name, search] of Object.entries(SEARCH))
      expect({ name, ...(await measure(member, () => search(member, "travel"))) }).toEqual({ name, code: "ok", consumed: 1 });
  });

  it("a node the trial key does not unlock: the free locked view and nothing consumed where there is a view, module_not_in_trial where rules need the layers", async () => {
    for (const [name, path] of Object.entries(PATHS))
      expect({ name, ...(await measure(trial, () => path(trial, "travel", "trv-m6"))) }).toEqual({
        name,
        code: "ok",
        locked: true,
        consumed: 0,
      });
    for (const [name, path] of Object.entries(EVALUATE))
      expect({ name, ...(await measure(trial, () => path(trial, "travel", "trv-m6"))) }).toEqual({
        name,
        code: "module_not_in_trial",
        consumed: 0,
      });
  });

  it("a node with no free view the key does not unlock: the same refusal everywhere, nothing consumed", async () => {
    for (const [name, path] of Object.entries({ ...PATHS, ...EVALUATE })) {
      expect({ name, ...(await measure(member, () => path(member, "legal", "legal-one"))) }).toEqual({
        name,
        code: "vertical_forbidden",
        consumed: 0,
      });
    }
    for (const [name, search] of Object.entries(SEARCH))
      expect({ name, ...(await measure(member, () => search(member, "legal"))) }).toEqual({
        name,
        code: "vertical_forbidden",
        consumed: 0,
      });
  });
});
