/**
 * Answered requests counted as plain numbers, one series per route pattern, method and status,
 * and handed to prom-client only when /metrics is scraped. prom-client hashes the label set on
 * every `inc()` and `observe()`, which a profile put at about 1.6 µs of a metered request
 * (docs/performance-history.md); here a request adds to numbers it finds through three Map lookups.
 *
 * The request count is a prom-client Counter refilled from these numbers at scrape time; the
 * latency histogram is a small metric object that prom-client's registry renders like its own
 * Histogram (same lines, same label order), since a Histogram's buckets cannot be set from outside.
 */
import type { Metric } from "prom-client";

/** Latency buckets in seconds (the upper bounds; +Inf is implied). */
export const LATENCY_BUCKETS: readonly number[] = Object.freeze([0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]);

interface MethodSeries {
  labels: { route: string; method: string };
  /** Answers by status. */
  statuses: Map<number, number>;
  /** Observations per bucket, not cumulative; the last slot is beyond the largest bound. */
  buckets: number[];
  sum: number;
  count: number;
}

export interface RequestSeries {
  /** One answered request. */
  record(route: string, method: string, status: number, seconds: number): void;
  /** Every (route, method, status) seen so far with its count. */
  forEachCount(visit: (route: string, method: string, status: number, count: number) => void): void;
  /** The latency histogram, for `registry.registerMetric`. */
  readonly latency: Metric;
}

export function createRequestSeries(name: string, help: string): RequestSeries {
  // Route patterns and methods are small fixed sets (app.ts labels unmatched paths as one route).
  const routes = new Map<string, Map<string, MethodSeries>>();
  const seriesOf = (route: string, method: string): MethodSeries => {
    let methods = routes.get(route);
    if (methods === undefined) routes.set(route, (methods = new Map()));
    let series = methods.get(method);
    if (series === undefined) {
      series = { labels: { route, method }, statuses: new Map(), buckets: LATENCY_BUCKETS.map(() => 0).concat(0), sum: 0, count: 0 };
      methods.set(method, series);
    }
    return series;
  };
  const allSeries = function* (): Generator<MethodSeries> {
    for (const methods of routes.values()) yield* methods.values();
  };
  const latency = new ScrapedHistogram(name, help, allSeries, () => routes.clear());
  return {
    record(route, method, status, seconds) {
      const series = seriesOf(route, method);
      series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1);
      let bucket = 0;
      while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++;
      series.buckets[bucket]!++;
      series.sum += seconds;
      series.count++;
    },
    forEachCount(visit) {
      for (const series of allSeries())
        for (const [status, n] of series.statuses) visit(series.labels.route, series.labels.method, status, n);
    },
    latency: latency as unknown as Metric,
  };
}

// --- Internal helpers ---

interface ValuePair {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
}

/** What prom-client's registry asks of a metric: name, help, type, aggregator, `get`, `reset` (and, for text, `getForPromString`). */
class ScrapedHistogram {
  // What prom-client's own metrics carry at run time (its typings declare a numeric enum).
  readonly type = "histogram";
  readonly aggregator = "sum";
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly series: () => Iterable<MethodSeries>,
    readonly reset: () => void,
  ) {}

  /** Values as prom-client's Histogram renders them: `le` first, then the series' labels. */
  async getForPromString(): Promise<{ name: string; help: string; type: string; aggregator: string; values: ValuePair[] }> {
    const values: ValuePair[] = [];
    for (const s of this.series()) {
      let acc = 0;
      LATENCY_BUCKETS.forEach((bound, i) => {
        acc += s.buckets[i]!;
        values.push({ labels: { le: bound }, sharedLabels: s.labels, value: acc, metricName: `${this.name}_bucket` });
      });
      values.push(
        { labels: { le: "+Inf" }, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_bucket` },
        { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** The JSON form (`getMetricsAsJSON`): each value's labels merged, and buckets with no exemplar, as prom-client's Histogram gives them. */
  async get() {
    const data = await this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ labels, sharedLabels, value, metricName }) => ({
        value,
        metricName,
        ...(metricName.endsWith("_bucket") ? { exemplar: null } : {}),
        labels: { ...labels, ...sharedLabels },
      })),
    };
  }
}
