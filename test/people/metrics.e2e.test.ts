/** GET /metrics parses as Prometheus text and its counters move as requests are made. */
import parsePrometheusTextFormat, { type PrometheusFamily } from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { peopleFixtureDist } from "./_fixture.ts";

let svc: TestService;
let guarded: TestService;

beforeAll(async () => {
  svc = await startTestService(peopleFixtureDist(), { RETRIEVAL_LIMITS: JSON.stringify({ hourly_rate_limit: 2 }) });
  guarded = await startTestService(peopleFixtureDist(), { METRICS_TOKEN: "scrape-secret-123" });
});
afterAll(async () => {
  await svc?.close();
  await guarded?.close();
});

async function scrape(service: TestService, headers: Record<string, string> = {}): Promise<PrometheusFamily[]> {
  const res = await service.request("/metrics", { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusTextFormat(res.text);
}

function sample(families: PrometheusFamily[], name: string, labels: Record<string, string>): number {
  const family = families.find((f) => f.name === name);
  const hit = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return hit ? Number(hit.value ?? hit.count) : 0;
}

describe("GET /metrics", () => {
  it("counts requests by route and status, latency, retrievals and quota denials by window", async () => {
    const before = await scrape(svc);
    await svc.request("/api/demo?vertical=a2a-handoff&node=a2a-one");
    await svc.request("/api/demo?vertical=a2a-handoff&node=a2a-one");
    await svc.request("/api/demo?vertical=a2a-handoff&node=missing");
    const issued = await svc.request("/api/keys", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      json: { vertical: "travel" },
    });
    const key = issued.body.keys[0].key as string;
    for (let i = 0; i < 3; i++) await svc.request("/api/demo?vertical=travel&node=trv-m1", { headers: { "x-service-key": key } });
    const after = await scrape(svc);

    const demo200 = { name: "vkr_http_requests_total", labels: { route: "/api/demo", method: "GET", status: "200" } };
    expect(sample(after, demo200.name, demo200.labels) - sample(before, demo200.name, demo200.labels)).toBe(4);
    expect(
      sample(after, "vkr_http_requests_total", { route: "/api/demo", status: "404" }) -
        sample(before, "vkr_http_requests_total", { route: "/api/demo", status: "404" }),
    ).toBe(1);
    expect(
      sample(after, "vkr_retrievals_total", { route: "/api/demo" }) - sample(before, "vkr_retrievals_total", { route: "/api/demo" }),
    ).toBe(4);
    expect(sample(after, "vkr_quota_denials_total", { window: "hour", code: "quota_exceeded" })).toBe(1);

    const histogram = after.find((f) => f.name === "vkr_http_request_duration_seconds")!;
    expect(histogram.type).toBe("HISTOGRAM");
    expect(Object.keys(histogram.metrics[0]!.buckets!)).toContain("+Inf");
    // The parser folds a labelled histogram's series together, so read this series' count from the text itself.
    const text = (await svc.request("/metrics")).text;
    const count = Number(/^vkr_http_request_duration_seconds_count\{route="\/api\/demo",method="GET"\} (\d+)$/m.exec(text)?.[1]);
    expect(count).toBeGreaterThanOrEqual(6);

    await svc.request("/api/checkout", { method: "POST", json: { vertical: "travel", payment_method: "card", contact: "m@example.org" } });
    const outcomes = (await scrape(svc)).find((f) => f.name === "vkr_payment_outcomes_total")!;
    expect(outcomes.metrics.map((m) => m.labels?.method)).toEqual(["card"]);
    expect(sample(after, "vkr_build_info", { build_id: svc.service.deps.build.current.buildId })).toBe(1);
    expect(sample(after, "vkr_store_up", { store: "sqlite" })).toBe(1);
    // Unknown paths share one label value, so a scanner cannot grow the label set.
    expect((await fetch(`${svc.url}/no/such/path/123`)).status).toBe(404);
    expect(sample(await scrape(svc), "vkr_http_requests_total", { route: "unmatched", status: "404" })).toBe(1);
  });

  it("counts MCP tool calls by tool and outcome with a latency histogram, and exports the process metrics", async () => {
    const mcp = (name: string, args: Record<string, unknown>) =>
      svc.request("/mcp", {
        method: "POST",
        headers: { accept: "application/json, text/event-stream" },
        json: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
      });
    const before = await scrape(svc);
    expect((await mcp("get_node", { vertical: "a2a-handoff", node: "a2a-one" })).status).toBe(200);
    expect((await mcp("get_node", { vertical: "a2a-handoff", node: "a2a-one" })).status).toBe(200);
    expect((await mcp("get_node", { vertical: "a2a-handoff", node: "no-such-node" })).body.result.isError).toBe(true);
    expect((await mcp("list_verticals", {})).status).toBe(200);
    // An unknown tool is a protocol error and never becomes a label.
    expect((await mcp("drop_tables; --", {})).body.error).toBeTruthy();
    const after = await scrape(svc);
    const delta = (labels: Record<string, string>) =>
      sample(after, "vkr_mcp_tool_calls_total", labels) - sample(before, "vkr_mcp_tool_calls_total", labels);
    expect(delta({ tool: "get_node", outcome: "ok" })).toBe(2);
    expect(delta({ tool: "get_node", outcome: "error" })).toBe(1);
    expect(delta({ tool: "list_verticals", outcome: "ok" })).toBe(1);
    const tools = new Set(after.find((f) => f.name === "vkr_mcp_tool_calls_total")!.metrics.map((m) => m.labels?.tool));
    expect(
      [...tools].every((t) =>
        ["list_verticals", "get_index", "get_node", "search", "evaluate_rules", "get_changes", "verify_key"].includes(t!),
      ),
    ).toBe(true);
    const text = (await svc.request("/metrics")).text;
    expect(Number(/^vkr_mcp_tool_call_duration_seconds_count\{tool="get_node"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(3);
    // collectDefaultMetrics: the standard process and Node.js series.
    for (const name of [
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_seconds",
      "nodejs_heap_size_used_bytes",
    ]) {
      expect(
        after.some((f) => f.name === name),
        name,
      ).toBe(true);
    }
  });

  it("each response carries an X-Request-Id that the log line shares", async () => {
    const res = await svc.request("/healthz", { headers: { "x-request-id": "trace-abc-12345" } });
    expect(res.headers.get("x-request-id")).toBe("trace-abc-12345");
    expect(svc.logs.some((l) => l.includes("trace-abc-12345"))).toBe(true);
  });

  it("needs the bearer when METRICS_TOKEN is set", async () => {
    expect((await guarded.request("/metrics")).status).toBe(401);
    expect((await guarded.request("/metrics", { headers: { authorization: "Bearer nope" } })).status).toBe(403);
    expect((await scrape(guarded, { authorization: "Bearer scrape-secret-123" })).length).toBeGreaterThan(3);
  });
});
