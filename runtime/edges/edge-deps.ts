/**
 * What the edges (routes, MCP, the pages) are handed: the domain's deps and the recorders the
 * edges report to. Declared here so the edges name it without importing the wiring; `AppDeps`
 * (runtime/deps.ts) extends it with tracing, which only the app's own middleware uses.
 */

import type { DomainDeps } from "../domain/domain-deps.ts";
import type { Metrics } from "./metrics/create-metrics.ts";

export interface EdgeDeps extends DomainDeps {
  /** Prometheus registry and recorders of this app (GET /metrics); absent, nothing is recorded. */
  readonly metrics?: Metrics;
}
