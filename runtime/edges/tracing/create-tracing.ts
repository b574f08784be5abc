/**
 * OpenTelemetry tracing for one service, loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set: a
 * tracer provider with a batch processor and the OTLP/HTTP exporter (JSON, to
 * `<endpoint>/v1/traces`). The packages are imported here on demand (and kept out of the server
 * bundle, `build/bundle-server.ts`), so a service without traces never loads or even parses them.
 *
 * Nothing is registered globally (no global tracer provider, context manager or propagator): the
 * tracer and its context live in the `Tracing` handed to the app, so several services in one
 * process (the tests) each trace on their own, and a service without an endpoint has no trace of
 * OpenTelemetry in it. The parent of a span is carried by this instance's AsyncLocalStorage
 * context manager, entered once per request.
 */
import type { Span, Tracer } from "@opentelemetry/api";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { TracingConfig } from "../../domain/runtime-config.ts";
import { isApiError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { RequestSpan, Tracing } from "./tracing.ts";

/** A shutdown waits this long at most for the last spans to leave (the collector may be down). */
const SHUTDOWN_WAIT_MS = 5_000;
/** Failed exports are logged once, then at most once per this period, with the count since. */
const EXPORT_WARNING_EVERY_MS = 60_000;

export interface TracingOptions {
  logger: Logger;
  /** The service's version (`service.version`). */
  version?: string;
}

export async function createTracing(config: TracingConfig, options: TracingOptions): Promise<Tracing> {
  const [api, { AsyncLocalStorageContextManager }, { OTLPTraceExporter }, { defaultResource, resourceFromAttributes }, sdk] =
    await Promise.all([
      import("@opentelemetry/api"),
      import("@opentelemetry/context-async-hooks"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/sdk-trace-base"),
    ]);
  const { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } = api;
  const { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, TraceIdRatioBasedSampler } = sdk;
  /** Marks the span failed with the error's catalogue code (or its name) and ends it; the message is left out, as it may quote a provider. */
  const fail = (span: Span, error: unknown): void => {
    const type = isApiError(error) ? error.code : error instanceof Error ? error.name : typeof error;
    span.setAttribute("error.type", type);
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  const exporter = _warnOnFailure(
    new OTLPTraceExporter({ url: config.tracesUrl, headers: { ...config.headers } }),
    options.logger,
    config.tracesUrl,
  );
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({ "service.name": config.serviceName, ...(options.version ? { "service.version": options.version } : {}) }),
    ),
    // Given here, so the SDK's own reading of OTEL_TRACES_SAMPLER never applies (config.ts reads it).
    sampler: config.sampleRatio >= 1 ? new AlwaysOnSampler() : new TraceIdRatioBasedSampler(config.sampleRatio),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer: Tracer = provider.getTracer("vertical-knowledge-retrieval", options.version);
  const contexts = new AsyncLocalStorageContextManager().enable();
  let stopped: Promise<void> | null = null;

  return {
    startRequest({ method, path, requestId }) {
      const span = tracer.startSpan(
        method,
        {
          kind: SpanKind.SERVER,
          attributes: { "http.request.method": method, "url.path": path, "vkr.request_id": requestId },
        },
        ROOT_CONTEXT,
      );
      const active = trace.setSpan(ROOT_CONTEXT, span);
      const request: RequestSpan = {
        run: (fn) => contexts.with(active, fn),
        end({ route, status, keyId, paymentMethod }) {
          if (route) {
            span.updateName(`${method} ${route}`);
            span.setAttribute("http.route", route);
          }
          span.setAttribute("http.response.status_code", status);
          if (keyId) span.setAttribute("vkr.key_id", keyId);
          if (paymentMethod) span.setAttribute("vkr.payment_method", paymentMethod);
          // A server span fails on a 5xx only: a 4xx is the client's doing (the semantic conventions' rule).
          if (status >= 500) {
            span.setAttribute("error.type", String(status));
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        },
      };
      return request;
    },
    call(name, attributes, fn) {
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, contexts.active());
      let result;
      try {
        result = fn();
      } catch (error) {
        fail(span, error);
        throw error;
      }
      if (!_isThenable(result)) {
        span.end();
        return result;
      }
      return result.then(
        (value) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          fail(span, error);
          throw error;
        },
      ) as typeof result;
    },
    flush: () => provider.forceFlush(),
    shutdown: () =>
      (stopped ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        const wait = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)));
        try {
          await Promise.race([provider.shutdown(), wait]);
        } catch (error) {
          options.logger.warn("traces: the last spans could not be sent", { reason: _reason(error) });
        } finally {
          clearTimeout(timer);
          contexts.disable();
        }
      })()),
  };
}

// --- Internal helpers ---

function _isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as { then?: unknown }).then === "function"
  );
}

function _reason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}

/**
 * The exporter, with failed exports logged: the SDK reports them only to its global diagnostic
 * logger, which is silent unless registered, so a collector that is down would go unnoticed.
 */
function _warnOnFailure(exporter: SpanExporter, logger: Logger, url: string): SpanExporter {
  let failed = 0;
  let warnedAt = Number.NEGATIVE_INFINITY;
  return {
    export(spans: ReadableSpan[], done) {
      exporter.export(spans, (result) => {
        // ExportResultCode.SUCCESS is 0 (@opentelemetry/core, not a dependency of ours).
        if (result.code !== 0) {
          failed += spans.length;
          const now = Date.now();
          if (now - warnedAt >= EXPORT_WARNING_EVERY_MS) {
            warnedAt = now;
            logger.warn("traces: spans could not be exported; they are dropped", {
              url,
              spans: failed,
              reason: result.error ? _reason(result.error) : "unknown",
            });
            failed = 0;
          }
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
