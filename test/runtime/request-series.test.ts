// The request metrics counted as plain numbers render exactly what prom-client's own Counter and
// Histogram rendered for the same requests: same lines (text and JSON), so dashboards see no change.
import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createRequestSeries, LATENCY_BUCKETS } from "../../runtime/edges/metrics/request-series.ts";

const REQUESTS: Array<[route: string, method: string, status: number, seconds: number]> = [
  ["/api/demo", "GET", 200, 0.0004],
  ["/api/demo", "GET", 200, 0.001], // exactly on a bound: counted in that bucket
  ["/api/demo", "GET", 429, 0.003],
  ["/api/demo", "HEAD", 200, 0.02],
  ["/mcp", "POST", 200, 0.7],
  ["/mcp", "POST", 500, 9], // beyond the largest bound: +Inf only
  ["unmatched", "GET", 404, 0.0001],
  ["/api/demo", "GET", 200, 0.26],
];

describe("request series", () => {
  it("render the same text and JSON as prom-client's Counter and Histogram fed request by request", async () => {
    const before = new Registry();
    const requests = new Counter({ name: "t_requests_total", help: "h", labelNames: ["route", "method", "status"], registers: [before] });
    const latency = new Histogram({
      name: "t_seconds",
      help: "l",
      labelNames: ["route", "method"],
      buckets: [...LATENCY_BUCKETS],
      registers: [before],
    });
    const after = new Registry();
    const series = createRequestSeries("t_seconds", "l");
    new Counter({
      name: "t_requests_total",
      help: "h",
      labelNames: ["route", "method", "status"],
      registers: [after],
      collect() {
        this.reset();
        series.forEachCount((route, method, status, n) => this.inc({ route, method, status: String(status) }, n));
      },
    });
    after.registerMetric(series.latency);
    for (const [route, method, status, seconds] of REQUESTS) {
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route, method }, seconds);
      series.record(route, method, status, seconds);
    }
    const lines = (text: string) => text.split("\n").sort();
    expect(lines(await after.metrics())).toEqual(lines(await before.metrics()));
    expect(lines(await after.metrics()).filter((l) => l.startsWith("t_seconds_bucket")).length).toBe(4 * (LATENCY_BUCKETS.length + 1));
    const json = async (registry: Registry) =>
      (await registry.getMetricsAsJSON()).map((m) => ({ ...m, values: [...m.values].map((v) => JSON.stringify(v)).sort() }));
    expect(await json(after)).toEqual(await json(before));
    // A scrape reads the totals; it does not reset them.
    expect(lines(await after.metrics())).toEqual(lines(await before.metrics()));
  });
});
