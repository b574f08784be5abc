/**
 * A collector stand-in speaking OTLP/HTTP with the JSON encoding (what
 * @opentelemetry/exporter-trace-otlp-http sends): `POST /v1/traces` with an
 * ExportTraceServiceRequest, answered 200 with an empty ExportTraceServiceResponse. Spans are
 * flattened with their resource's attributes; every TCP connection is counted, so a test can
 * show that nothing tried to reach it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Span kinds as OTLP numbers them. */
export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** 2 is ERROR (OTLP's STATUS_CODE_ERROR). */
  statusCode: number;
  resource: Record<string, string | number | boolean>;
}

export interface OtlpCollector {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans: CollectedSpan[];
  /** Every request that reached the server, by path and content type. */
  requests: Array<{ path: string; contentType: string | undefined; headers: IncomingMessage["headers"] }>;
  connections: number;
  close(): Promise<void>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const collector: Omit<OtlpCollector, "url" | "close"> = { spans: [], requests: [], connections: 0 };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = new URL(req.url ?? "/", "http://collector").pathname;
    collector.requests.push({ path, contentType: req.headers["content-type"], headers: req.headers });
    if (req.method !== "POST" || path !== "/v1/traces") {
      res.writeHead(404).end();
      return;
    }
    if (!req.headers["content-type"]?.startsWith("application/json")) {
      // This stand-in decodes the JSON encoding only; a protobuf body is refused as a collector would an unknown type.
      res.writeHead(415).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      resourceSpans?: Array<{
        resource?: { attributes?: OtlpAttribute[] };
        scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
      }>;
    };
    for (const resourceSpans of body.resourceSpans ?? []) {
      const resource = _attributes(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          collector.spans.push({
            traceId: String(span.traceId),
            spanId: String(span.spanId),
            parentSpanId: span.parentSpanId ? String(span.parentSpanId) : "",
            name: String(span.name),
            kind: Number(span.kind),
            attributes: _attributes(span.attributes as OtlpAttribute[] | undefined),
            statusCode: Number((span.status as { code?: number } | undefined)?.code ?? 0),
            resource,
          });
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  server.on("connection", () => collector.connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(collector, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

// --- Internal helpers ---

/** OTLP's JSON attribute list as a plain record (64-bit integers arrive as strings). */
function _attributes(list: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = Object.create(null);
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}
