/**
 * Per-client limits hold across instances: two bundled instances on one Redis, bursts of hundreds
 * of simultaneous requests from one client spread over both. Each limit admits exactly its number
 * in total, not its number per instance: free reads (ANON_RATE_PER_MINUTE), the free pages
 * (/llms.txt, /browse: their own count), search, MCP and trial keys (TRIALS_PER_CLIENT_HOUR).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import type { ChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { awayFromMinuteEnd, deletePrefix, SHARED_REDIS_URL, startInstances, uniquePrefix } from "./_cluster.ts";

const PER_MINUTE = 60;
const TRIALS_PER_HOUR = 7;
const prefix = uniquePrefix();
let instances: ChildServer[] = [];

beforeAll(async () => {
  instances = await startInstances(2, {
    DIST_DIR: buildContentTo(writeFixtureContent()),
    REDIS_URL: SHARED_REDIS_URL,
    REDIS_PREFIX: prefix,
    ANON_RATE_PER_MINUTE: String(PER_MINUTE),
    TRIALS_PER_CLIENT_HOUR: String(TRIALS_PER_HOUR),
  });
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.kill("SIGTERM")));
  await deletePrefix(SHARED_REDIS_URL, prefix);
});

describe("per-client limits across two instances", () => {
  it.each([
    ["free reads (GET /api/demo)", "/api/demo?vertical=travel"],
    ["the free pages (/llms.txt)", "/llms.txt"],
    ["search", "/api/search?q=visa"],
  ])("%s: a burst of 300 over both instances admits exactly the per-minute limit", async (_name, path) => {
    await awayFromMinuteEnd();
    const statuses = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        fetch(`${instances[i % 2]!.url}${path}`).then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        }),
      ),
    );
    expect(_tally(statuses)).toEqual({ 200: PER_MINUTE, 429: 300 - PER_MINUTE });
  });

  it("MCP: a burst of 200 anonymous tool calls over both instances admits exactly the per-minute limit", async () => {
    await awayFromMinuteEnd();
    const call = (i: number) =>
      fetch(`${instances[i % 2]!.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "search", arguments: { q: "visa" } } }),
      }).then(async (res) => {
        const body = await res.text();
        return res.status === 200 && !body.includes('"isError":true') ? "ok" : "limited";
      });
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => call(i)));
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(PER_MINUTE);
  });

  it("trial keys: a burst of 100 over both instances issues exactly the per-client hourly limit", async () => {
    const statuses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        fetch(`${instances[i % 2]!.url}/api/trial`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ agent_id: `limits-agent-${i}`, vertical: "travel" }),
        }).then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        }),
      ),
    );
    expect(_tally(statuses)).toEqual({ 200: TRIALS_PER_HOUR, 429: 100 - TRIALS_PER_HOUR });
  });
});

// --- Internal helpers ---

function _tally(statuses: number[]): Record<number, number> {
  return statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});
}
