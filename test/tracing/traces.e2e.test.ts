/**
 * Traces over real HTTP: the service started with OTEL_EXPORTER_OTLP_ENDPOINT exports OTLP/HTTP
 * (JSON) to a collector stand-in on a real port. One metered read is one trace: a SERVER span
 * carrying the request id of the answer, with the store's spans as its children (SQLite and
 * Redis); a paid x402 checkout has the facilitator's verify and settle as children; without the
 * variable nothing is installed and the collector is never reached.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { deletePrefix, SHARED_REDIS_URL, uniquePrefix } from "../cluster/_cluster.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { type CollectedSpan, type OtlpCollector, SPAN_KIND, startOtlpCollector } from "../helpers/otlp-collector.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { type FacilitatorStandIn, payWith, startFacilitator, x402Env } from "../payments/stand-ins/x402-facilitator.ts";

let dist: string;
let collector: OtlpCollector;
let svc: TestService | undefined;
const prefix = uniquePrefix();
beforeAll(async () => {
  dist = buildContentTo(writeFixtureContent());
  collector = await startOtlpCollector();
});
afterEach(async () => {
  await svc?.close();
  svc = undefined;
  collector.spans.length = 0;
  collector.requests.length = 0;
  collector.connections = 0;
});
afterAll(async () => {
  await collector?.close();
  await deletePrefix(SHARED_REDIS_URL, prefix);
});

const traced = (extra: Record<string, string> = {}) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/`,
  OTEL_SERVICE_NAME: "vkr-traces-test",
  OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-token",
  ...extra,
});
const issue = async (s: TestService) =>
  (await s.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: { vertical: "travel" } })).body
    .keys[0].key as string;

/** The one trace of the request that answered with `requestId`: its SERVER span and every span sharing its trace id. */
function traceOf(requestId: string): { server: CollectedSpan; spans: CollectedSpan[] } {
  const servers = collector.spans.filter((s) => s.attributes["vkr.request_id"] === requestId);
  expect(servers).toHaveLength(1);
  const server = servers[0]!;
  const spans = collector.spans.filter((s) => s.traceId === server.traceId);
  // One request, one trace: no other request's span shares it.
  expect(spans.filter((s) => s.kind === SPAN_KIND.SERVER)).toEqual([server]);
  return { server, spans };
}

describe("traces with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it.each([
    ["sqlite", {}],
    ["redis", { REDIS_URL: SHARED_REDIS_URL, REDIS_PREFIX: prefix }],
  ] as const)(
    "a metered read on %s is one trace: the SERVER span with its request id, the store spans its children",
    async (store, env) => {
      svc = await startTestService(dist, traced(env));
      const key = await issue(svc);
      const read = await svc.request("/api/demo?vertical=travel&node=trv-m1", { headers: { "x-service-key": key } });
      expect(read.status).toBe(200);
      expect(read.headers.get("ratelimit")).toBeTruthy(); // metered: the key's windows were consumed
      const requestId = read.headers.get("x-request-id")!;
      await svc.service.deps.tracing!.flush();

      const { server, spans } = traceOf(requestId);
      expect(server).toMatchObject({
        name: "GET /api/demo",
        kind: SPAN_KIND.SERVER,
        parentSpanId: "",
        attributes: {
          "http.request.method": "GET",
          "http.route": "/api/demo",
          "http.response.status_code": 200,
          "url.path": "/api/demo",
          "vkr.request_id": requestId,
        },
        resource: { "service.name": "vkr-traces-test" },
      });
      expect(server.attributes["vkr.key_id"]).toMatch(/^[\w-]+$/);
      const consume = spans.filter((s) => s.name === "store consume");
      expect(consume.length).toBeGreaterThanOrEqual(1);
      for (const span of consume)
        expect(span).toMatchObject({
          kind: SPAN_KIND.CLIENT,
          parentSpanId: server.spanId,
          attributes: { "db.system.name": store, "db.operation.name": "consume" },
        });
      // Every span of the trace hangs off the request's span.
      for (const span of spans) if (span !== server) expect(span.parentSpanId).toBe(server.spanId);
      // The exporter's requests: OTLP/HTTP JSON to /v1/traces, with the configured header; no secret in any span.
      expect(collector.requests.every((r) => r.path === "/v1/traces" && r.contentType === "application/json")).toBe(true);
      expect(collector.requests[0]!.headers.authorization).toBe("Bearer collector-token");
      expect(JSON.stringify(collector.spans)).not.toContain(key);
    },
  );

  it("a 404 and a 401 are spans with their status; only a 5xx would mark the span failed", async () => {
    svc = await startTestService(dist, traced());
    // Raw fetch: the OpenAPI check of `request` refuses a path outside the description.
    const missing = await fetch(`${svc.url}/no/such/route`);
    const refused = await svc.request("/api/keys");
    expect(missing.status).toBe(404);
    expect(refused.status).toBe(401);
    await svc.service.deps.tracing!.flush();
    const notFound = traceOf(missing.headers.get("x-request-id")!).server;
    expect(notFound.name).toBe("GET");
    expect(notFound.attributes["http.response.status_code"]).toBe(404);
    expect(notFound.attributes["http.route"]).toBeUndefined();
    expect(notFound.statusCode).toBe(0);
    const unauthorized = traceOf(refused.headers.get("x-request-id")!).server;
    expect(unauthorized).toMatchObject({ name: "GET /api/keys", statusCode: 0, attributes: { "http.response.status_code": 401 } });
  });

  it("a paid x402 checkout has the facilitator's verify and settle as child spans of its request", async () => {
    const facilitator: FacilitatorStandIn = await startFacilitator();
    try {
      svc = await startTestService(dist, traced({ ...x402Env(facilitator), PAYMENT_TIMEOUT_MS: "2000" }));
      const body = { vertical: "travel", payment_method: "http402", agent_id: "traced-buyer" };
      const required = await svc.request("/api/checkout", { method: "POST", json: body });
      expect(required.status).toBe(402);
      const requirement = JSON.parse(Buffer.from(required.headers.get("payment-required")!, "base64").toString("utf8")).accepts[0];
      const header = await payWith(facilitator.wallet(), 2, requirement);
      const paid = await svc.request("/api/checkout", { method: "POST", headers: { "payment-signature": header }, json: body });
      expect(paid.status).toBe(201);
      await svc.service.deps.tracing!.flush();

      const { server, spans } = traceOf(paid.headers.get("x-request-id")!);
      expect(server).toMatchObject({ name: "POST /api/checkout", attributes: { "http.response.status_code": 201 } });
      const facilitatorSpans = spans.filter((s) => s.attributes["vkr.payment.provider"] === "x402");
      expect(facilitatorSpans.map((s) => s.name)).toEqual(expect.arrayContaining(["payment x402 verify", "payment x402 settle"]));
      for (const name of ["payment x402 verify", "payment x402 settle"]) {
        const span = spans.find((s) => s.name === name)!;
        expect(span).toMatchObject({ kind: SPAN_KIND.CLIENT, parentSpanId: server.spanId, statusCode: 0 });
      }
      // The purchase's durable records are in the same trace, before and after the settle.
      expect(spans.some((s) => s.name.startsWith("store "))).toBe(true);
      expect(facilitator.calls.map((c) => c.path)).toEqual(["/verify", "/settle"]);
      // No payment signature reaches a span.
      expect(JSON.stringify(collector.spans)).not.toContain(header.slice(0, 40));
    } finally {
      await svc?.close();
      svc = undefined;
      await facilitator.close();
    }
  });
});

describe("without OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("installs nothing and never reaches a collector, even one the exporter library would find in the process environment", async () => {
    // The OTLP exporter falls back to these process variables by itself; the service must not, as
    // its switch is its own config (the env it was started with does not have the endpoint).
    const saved = { all: process.env.OTEL_EXPORTER_OTLP_ENDPOINT, traces: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT };
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
    process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `${collector.url}/v1/traces`;
    try {
      svc = await startTestService(dist);
      expect(svc.service.deps.tracing).toBeUndefined();
      const key = await issue(svc);
      const read = await svc.request("/api/demo?vertical=travel&node=trv-m1", { headers: { "x-service-key": key } });
      expect(read.status).toBe(200);
      // A close flushes whatever a tracer would hold; give a stray exporter its chance to connect.
      await svc.close();
      svc = undefined;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(collector.connections).toBe(0);
      expect(collector.spans).toEqual([]);
    } finally {
      if (saved.all === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved.all;
      if (saved.traces === undefined) delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = saved.traces;
    }
  });
});
