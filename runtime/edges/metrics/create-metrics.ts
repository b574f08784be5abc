/**
 * The service's Prometheus metrics (prom-client), one Registry per app so tests and several apps
 * in one process never share counters. `app.ts` reports every response and every problem here;
 * `GET /metrics` renders the registry. Build id and store health are read at scrape time.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { ApiError } from "../../shared/errors.ts";
import type { BuildRef } from "../../state/releases/build-ref.ts";
import type { StateBackend } from "../../state/storage/backend.ts";
import { createRequestSeries } from "./request-series.ts";

export interface Metrics {
  registry: Registry;
  /** One finished request: `route` is the matched route pattern (never the raw path). */
  observeResponse(input: { method: string; route: string; status: number; seconds: number; paymentMethod?: string | undefined }): void;
  /** A catalogue error answered; quota and rate denials are counted by window. */
  observeProblem(error: ApiError): void;
  /** One MCP tools/call of a known tool: `tool` is a name from the server's own tool table, never request text. */
  observeToolCall(input: { tool: string; outcome: "ok" | "error"; seconds: number }): void;
}

/** Checkout statuses by outcome word; others are labelled with the status number. */
const PAYMENT_OUTCOMES: Record<number, string> = {
  200: "info",
  201: "issued",
  303: "redirect",
  402: "failed",
  409: "conflict",
  503: "unavailable",
};

/** Routes reached by no registered route are reported under this label, so paths cannot explode the label set. */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * `retrievalRoutes`: the route patterns whose 2xx answers are retrievals of knowledge (what a key
 * is metered for), read from the route declarations (`runtime/edges/routes/route-table.ts`).
 * @example const metrics = createMetrics({ build: deps.build, backend: deps.backend, retrievalRoutes: retrievalRoutes() })
 */
export function createMetrics(source: { build: BuildRef; backend: StateBackend; retrievalRoutes: ReadonlySet<string> }): Metrics {
  const { retrievalRoutes } = source;
  const registry = new Registry();
  // Counted per request as plain numbers (request-series.ts) and read into prom-client at scrape time.
  const answered = createRequestSeries("vkr_http_request_duration_seconds", "Time to answer a request, by route pattern and method.");
  new Counter({
    name: "vkr_http_requests_total",
    help: "HTTP requests answered, by route pattern, method and status.",
    labelNames: ["route", "method", "status"],
    registers: [registry],
    collect() {
      this.reset();
      answered.forEachCount((route, method, status, n) => this.inc({ route, method, status: String(status) }, n));
    },
  });
  registry.registerMetric(answered.latency);
  new Counter({
    name: "vkr_retrievals_total",
    help: "Successful knowledge retrievals (2xx on a retrieval route), by route.",
    labelNames: ["route"],
    registers: [registry],
    collect() {
      this.reset();
      answered.forEachCount((route, _method, status, n) => {
        if (status >= 200 && status < 300 && retrievalRoutes.has(route)) this.inc({ route }, n);
      });
    },
  });
  const payments = new Counter({
    name: "vkr_payment_outcomes_total",
    help: "Checkout answers by payment method and outcome (issued 201, redirect 303, failed 402, other statuses by number).",
    labelNames: ["method", "outcome"],
    registers: [registry],
  });
  const toolCalls = new Counter({
    name: "vkr_mcp_tool_calls_total",
    help: "MCP tools/call answers by tool and outcome (ok, or error for an isError result).",
    labelNames: ["tool", "outcome"],
    registers: [registry],
  });
  const toolLatency = new Histogram({
    name: "vkr_mcp_tool_call_duration_seconds",
    help: "Time to run one MCP tool call, by tool.",
    labelNames: ["tool"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // Process CPU, memory, event-loop lag, GC and handles, under prom-client's standard names.
  collectDefaultMetrics({ register: registry });
  const denials = new Counter({
    name: "vkr_quota_denials_total",
    help: "Requests refused by a quota or rate window, by window.",
    labelNames: ["window", "code"],
    registers: [registry],
  });
  new Gauge({
    name: "vkr_build_info",
    help: "The build in service (value 1), labelled with its build id and API version.",
    labelNames: ["build_id", "api_version"],
    registers: [registry],
    collect() {
      this.reset();
      const build = source.build.current;
      this.set({ build_id: build.buildId, api_version: build.catalog.api_version }, 1);
    },
  });
  new Gauge({
    name: "vkr_store_up",
    help: "1 when the state store answered a ping at scrape time, else 0.",
    labelNames: ["store"],
    registers: [registry],
    async collect() {
      const ok = await source.backend.ping().catch(() => false);
      this.set({ store: source.backend.kind }, ok ? 1 : 0);
    },
  });

  return {
    registry,
    observeResponse({ method, route, status, seconds, paymentMethod }) {
      answered.record(route, method, status, seconds);
      if (paymentMethod !== undefined) payments.inc({ method: paymentMethod, outcome: PAYMENT_OUTCOMES[status] ?? String(status) });
    },
    observeToolCall({ tool, outcome, seconds }) {
      toolCalls.inc({ tool, outcome });
      toolLatency.observe({ tool }, seconds);
    },
    observeProblem(error) {
      if (error.code !== "quota_exceeded" && error.code !== "trial_exhausted" && error.code !== "rate_limited") return;
      const window = error.options.extra?.window;
      denials.inc({ window: typeof window === "string" ? window : error.code === "rate_limited" ? "client" : "unknown", code: error.code });
    },
  };
}
