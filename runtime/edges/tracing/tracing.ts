/**
 * What the runtime asks of tracing (`AppDeps.tracing`), with no OpenTelemetry type in it: only
 * `create-tracing.ts` loads the SDK, and only when OTEL_EXPORTER_OTLP_ENDPOINT is set. Absent, the
 * app registers no middleware and wraps neither the store nor the providers, so a service without
 * traces runs exactly the code it ran before they existed.
 */

/** Attribute values as spans carry them. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** How a request ended, set on its span when the answer is ready. */
interface RequestOutcome {
  /** The matched route pattern (`/api/nodes/:id`), never the raw path; undefined when no route matched. */
  route: string | undefined;
  status: number;
  /** Public id of the key the request used (a hash prefix, as in the logs). */
  keyId?: string;
  paymentMethod?: string;
}

/** The SERVER span of one request. */
export interface RequestSpan {
  /** Runs `fn` as the request's body: spans started inside it (store, providers) are this span's children. */
  run<T>(fn: () => T): T;
  end(outcome: RequestOutcome): void;
}

export interface Tracing {
  startRequest(request: { method: string; path: string; requestId: string }): RequestSpan;
  /**
   * Runs `fn` inside a CLIENT span named `name`: a child of the current request's span, or a
   * trace of its own outside any request (timers, start-up). A rejection marks the span failed.
   */
  call<T>(name: string, attributes: SpanAttributes, fn: () => T): T;
  /** Sends every finished span now (tests, before reading the collector). */
  flush(): Promise<void>;
  /** Sends what is left and stops the exporter; bounded in time, never throws. */
  shutdown(): Promise<void>;
}
