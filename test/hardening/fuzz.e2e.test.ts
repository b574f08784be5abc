/**
 * Property-based fuzzing of every endpoint in the published OpenAPI description, over real HTTP:
 * whatever arrives, the answer is < 500, every error is a problem body that validates against
 * the description, and the server stays up without its heap growing beyond a bound. Fixed seed
 * and bounded budget here; `npm run fuzz` runs longer (FUZZ_RUNS, FUZZ_SEED to reproduce a failure;
 * the memory check's batch stays the same size).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../runtime/edges/routes/index.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { bodyFor, headerSets, pathParamsFor, prototypeWordExamples, queryFor } from "./fuzz-arbitraries.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()), {
    ANON_RATE_PER_MINUTE: "100000000",
    TRIALS_PER_CLIENT_HOUR: "100000000",
    MAX_BODY_BYTES: "65536",
  });
});
afterAll(() => svc?.close());

const fuzzable = OPERATIONS.filter((op) => !op.path.startsWith("/mcp"));
describe.each(fuzzable.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))("fuzz %s", (_name, op) => {
  it("never answers 5xx and every error is a documented problem", async () => {
    const bodyFields = op.body && "properties" in op.body ? Object.keys((op.body as unknown as { properties: object }).properties) : [];
    const queryNames = (op.params ?? []).filter((p) => p.in === "query").map((p) => p.name);
    const pathNames = (op.params ?? []).filter((p) => p.in === "path").map((p) => p.name);
    await fc.assert(
      fc.asyncProperty(
        queryFor(queryNames),
        pathParamsFor(pathNames),
        headerSets,
        bodyFor(bodyFields),
        fc.boolean(),
        async (query, pathParams, headers, body, rawGarbage) => {
          const { path, init } = _toRequest(op, query, pathParams, headers, body, rawGarbage);
          let res;
          try {
            res = await svc.request(path, init);
          } catch (error) {
            // The OpenAPI check throws on any undocumented answer: that is a finding, keep it.
            throw new Error(`${op.method} ${path}: ${(error as Error).message}`);
          }
          expect(res.status, `${op.method} ${path} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
          if (res.status >= 400) expect(res.headers.get("content-type")).toBe("application/problem+json");
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true, examples: prototypeWordExamples(queryNames, pathNames, bodyFields) },
    );
    expect((await fetch(svc.url + "/healthz")).status).toBe(200);
  });
});

describe("transport-level abuse", () => {
  it("caps request bodies with 413", async () => {
    const res = await svc.request("/api/trial", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_id: "x".repeat(70_000) }),
    });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("body_too_large");
  });
  it("rejects oversize headers without taking the process down", async () => {
    const res = await fetch(svc.url + "/api/status", { headers: { "x-big": "y".repeat(32 * 1024) } }).catch(() => null);
    if (res) expect(res.status).toBe(431);
    expect((await fetch(svc.url + "/healthz")).status).toBe(200);
  });
});

describe("memory under hostile traffic", () => {
  // Bounded, not exact: a full GC before each reading removes garbage, so what is left is what the
  // server retained. 496 measured requests × 100 KB retained each would be ~48 MB, over the bound;
  // the noise of a quiet run is a few MB.
  const PER_OP = 20;
  const WARM_UP_PER_OP = 4;
  const MAX_GROWTH_BYTES = 30 * 1024 * 1024;

  it("does not grow the heap without bound over several hundred fuzzed requests", async () => {
    const requests = fuzzable.flatMap((op, i) => _sampleRequests(op, PER_OP, SEED + i));
    const warmUp = requests.filter((r) => r.n < WARM_UP_PER_OP);
    const measured = requests.filter((r) => r.n >= WARM_UP_PER_OP);
    await _send(warmUp);
    svc.logs.length = 0; // the harness keeps every log line; that is the test's memory, not the server's
    const before = await _heapAfterGc();
    await _send(measured);
    svc.logs.length = 0;
    const after = await _heapAfterGc();
    const growth = after - before;
    expect(growth, `heap grew ${(growth / 1048576).toFixed(1)} MB over ${measured.length} requests`).toBeLessThan(MAX_GROWTH_BYTES);
    expect((await fetch(svc.url + "/healthz")).status).toBe(200);
  });
});

// --- Internal helpers ---

interface FuzzRequest {
  n: number;
  path: string;
  init: RequestInit;
}

/** `count` requests for one operation from the fuzz arbitraries, reproducible from `seed`. */
function _sampleRequests(op: (typeof fuzzable)[number], count: number, seed: number): FuzzRequest[] {
  const bodyFields = op.body && "properties" in op.body ? Object.keys((op.body as unknown as { properties: object }).properties) : [];
  const queryNames = (op.params ?? []).filter((p) => p.in === "query").map((p) => p.name);
  const pathNames = (op.params ?? []).filter((p) => p.in === "path").map((p) => p.name);
  const samples = fc.sample(fc.tuple(queryFor(queryNames), pathParamsFor(pathNames), headerSets, bodyFor(bodyFields), fc.boolean()), {
    seed,
    numRuns: count,
  });
  return samples.map(([query, pathParams, headers, body, rawGarbage], n) => ({
    n,
    ..._toRequest(op, query, pathParams, headers, body, rawGarbage),
  }));
}

/** One generated input as an HTTP request: a POST sends the body, or unterminated JSON. */
function _toRequest(
  op: (typeof fuzzable)[number],
  query: [string, string][],
  pathParams: Record<string, string>,
  headers: Record<string, string>,
  body: unknown,
  rawGarbage: boolean,
): { path: string; init: RequestInit } {
  const qs = query.map(([k, v]) => `${_encode(k)}=${_encode(v)}`).join("&");
  const init: RequestInit = { method: op.method.toUpperCase(), headers: _safeHeaders(headers) };
  if (op.method === "post") init.body = rawGarbage ? '{"unterminated": [1, 2' : JSON.stringify(body);
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => _encode(pathParams[name] ?? name));
  return { path: `${path}${qs ? `?${qs}` : ""}`, init };
}

/** Sends the requests 8 at a time, reading every body, and checks the server never answers 5xx. */
async function _send(requests: FuzzRequest[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 8) {
    await Promise.all(
      requests.slice(i, i + 8).map(async (r) => {
        const res = await fetch(svc.url + r.path, r.init);
        await res.arrayBuffer();
        expect(res.status, `${r.init.method} ${r.path}`).toBeLessThan(500);
      }),
    );
  }
}

/** heapUsed after full collections; vitest's workers run without --expose-gc, so expose it here. */
async function _heapAfterGc(): Promise<number> {
  setFlagsFromString("--expose-gc");
  const gc = (globalThis as { gc?: () => void }).gc ?? (runInNewContext("gc") as () => void);
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

/** Lone surrogates cannot be percent-encoded; a client would send U+FFFD for them. */
function _encode(value: string): string {
  return encodeURIComponent(value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD"));
}

/** fetch refuses header values with CR/LF or non-Latin-1; those never reach a server anyway. */
function _safeHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => /^[\t\x20-\x7e\x80-\xff]*$/.test(v)));
}
