/**
 * The content scenarios (test/content/scenarios/*.yaml) through the MCP `evaluate_rules` tool
 * and through POST /api/evaluate, over the real built content: both answers are identical, and
 * they satisfy each scenario's expectations.
 */

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../build/_fixtures.ts";
import { readScenarioFiles } from "../helpers/scenarios.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { issueKey, rpc } from "./_setup.ts";

const scenarios = readScenarioFiles().flatMap((f) => f.items);

let svc: TestService;
let key: string;
beforeAll(async () => {
  // Every scenario costs two retrievals; lift the hourly and daily windows for this run.
  const limits = { hourly_rate_limit: 100_000, daily_standard: 100_000, daily_scale: 100_000, per_key_monthly: 100_000 };
  svc = await startTestService(join(REPO_ROOT, "dist"), { RETRIEVAL_LIMITS: JSON.stringify(limits) });
  key = await issueKey(svc, "all");
});
afterAll(() => svc?.close());

describe("content scenarios over MCP evaluate_rules and REST", () => {
  it("has scenarios to run", () => {
    expect(scenarios.length).toBeGreaterThan(0);
  });

  it.each(scenarios.map((s) => [`${s.vertical}/${s.node}: ${s.name}`, s] as const))("%s", async (_, s) => {
    const request = { vertical: s.vertical, node: s.node, facts: s.facts, ...(s.as_of ? { as_of: s.as_of } : {}) };
    const rest = await svc.request("/api/evaluate", { method: "POST", headers: { "x-service-key": key }, json: request });
    expect(rest.status).toBe(200);
    const mcp = await rpc(svc, "tools/call", { name: "evaluate_rules", arguments: request }, { "x-service-key": key });
    expect(mcp.result.isError).toBeFalsy();
    expect(mcp.result.structuredContent).toEqual(rest.body);
    expect(JSON.parse(mcp.result.content[0].text)).toEqual(rest.body);

    const answer = mcp.result.structuredContent;
    for (const o of s.expect.holds ?? []) expect(answer.holds).toContain(o);
    for (const o of s.expect.not_holds ?? []) expect(answer.does_not_hold).toContain(o);
    for (const o of s.expect.undetermined ?? []) expect(answer.undetermined).toContain(o);
    if (s.expect.missing) expect(answer.missing_facts.map((f: { id: string }) => f.id).sort()).toEqual([...s.expect.missing].sort());
    if (s.expect.derived) expect(answer.derived_facts).toEqual(s.expect.derived);
    if (s.as_of) expect(answer.as_of).toBe(s.as_of);
    for (const [o, values] of Object.entries(s.expect.values ?? {})) {
      expect(answer.outcomes.find((x: { id: string }) => x.id === o)?.values).toEqual(values);
    }
  });
});
