/** The OpenTelemetry variables as config reads them: off unless the endpoint is set; the spec's forms of endpoint and headers. */
import { describe, expect, it } from "vitest";
import { ConfigError, resolveRuntimeConfig } from "../../runtime/config.ts";

describe("tracing config", () => {
  it("is off without OTEL_EXPORTER_OTLP_ENDPOINT, whatever else is set", () => {
    expect(resolveRuntimeConfig({}).tracing).toBeNull();
    expect(resolveRuntimeConfig({ OTEL_SERVICE_NAME: "x", OTEL_EXPORTER_OTLP_HEADERS: "a=b" }).tracing).toBeNull();
  });

  it("appends /v1/traces to the endpoint, takes the service name and percent-decoded headers", () => {
    const tracing = resolveRuntimeConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://collector.example:4318/otlp/",
      OTEL_SERVICE_NAME: "kb-eu",
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20dXNlcjpwYXNz, x-tenant = eu ",
    }).tracing;
    expect(tracing).toEqual({
      tracesUrl: "https://collector.example:4318/otlp/v1/traces",
      serviceName: "kb-eu",
      headers: { authorization: "Basic dXNlcjpwYXNz", "x-tenant": "eu" },
      sampleRatio: 1,
    });
    expect(resolveRuntimeConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }).tracing).toMatchObject({
      tracesUrl: "http://127.0.0.1:4318/v1/traces",
      serviceName: "vertical-knowledge-retrieval",
    });
  });

  it("samples by OTEL_TRACES_SAMPLER and its ratio, and refuses a sampler it does not offer", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" };
    const ratio = (env: Record<string, string>) => resolveRuntimeConfig({ ...endpoint, ...env }).tracing?.sampleRatio;
    expect(ratio({})).toBe(1);
    expect(ratio({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" })).toBe(0.1);
    expect(ratio({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" })).toBe(0);
    for (const env of <Array<Record<string, string>>>[
      { OTEL_TRACES_SAMPLER: "jaeger_remote" },
      { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1.5" },
      { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "half" },
    ])
      expect(() => ratio(env)).toThrow(ConfigError);
  });

  it("refuses an endpoint that is no http(s) base URL and headers that are no name=value list, without echoing a header's value", () => {
    for (const endpoint of ["collector:4318", "grpc://collector:4317", "http://c:4318/?x=1"])
      expect(() => resolveRuntimeConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toThrow(ConfigError);
    for (const [headers, secret] of [
      ["s3cr3t-token-only", "s3cr3t"],
      ["=s3cr3t", "s3cr3t"],
      ["a=s3cr3t%E0%A4%A", "s3cr3t"],
      ["bad name=s3cr3t", "s3cr3t"],
    ]) {
      const run = () => resolveRuntimeConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_HEADERS: headers });
      expect(run).toThrow(ConfigError);
      expect(run).not.toThrow(secret);
    }
  });
});
