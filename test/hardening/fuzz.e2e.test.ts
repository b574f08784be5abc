/**
 * Property-based fuzzing of every endpoint in the published OpenAPI description, over real HTTP:
 * whatever arrives, the answer is < 500, every error is a problem body that validates against
 * the description, and the server stays up. Fixed seed and bounded budget here; `npm run fuzz`
 * runs longer (FUZZ_RUNS, FUZZ_SEED to reproduce a failure).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../runtime/openapi/operations.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { bodyFor, headerSets, queryFor } from "./fuzz-arbitraries.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()), { ANON_RATE_PER_MINUTE: "100000000", TRIALS_PER_CLIENT_HOUR: "100000000", MAX_BODY_BYTES: "65536" });
});
afterAll(() => svc?.close());

const fuzzable = OPERATIONS.filter((op) => !op.path.startsWith("/mcp"));

describe.each(fuzzable.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))("fuzz %s", (_name, op) => {
  it("never answers 5xx and every error is a documented problem", async () => {
    const bodyFields = op.body && "properties" in op.body ? Object.keys((op.body as unknown as { properties: object }).properties) : [];
    const queryNames = (op.params ?? []).filter((p) => p.in === "query").map((p) => p.name);
    await fc.assert(
      fc.asyncProperty(queryFor(queryNames), headerSets, bodyFor(bodyFields), fc.boolean(), async (query, headers, body, rawGarbage) => {
        const qs = query.map(([k, v]) => `${_encode(k)}=${_encode(v)}`).join("&");
        const init: RequestInit = { method: op.method.toUpperCase(), headers: _safeHeaders(headers) };
        if (op.method === "post") init.body = rawGarbage ? '{"unterminated": [1, 2' : JSON.stringify(body);
        let res;
        try {
          res = await svc.request(`${op.path}${qs ? `?${qs}` : ""}`, init);
        } catch (error) {
          // The OpenAPI check throws on any undocumented answer: that is a finding, keep it.
          throw new Error(`${op.method} ${op.path}?${qs}: ${(error as Error).message}`);
        }
        expect(res.status, `${op.method} ${op.path}?${qs} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
        if (res.status >= 400) expect(res.headers.get("content-type")).toBe("application/problem+json");
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    expect((await fetch(svc.url + "/healthz")).status).toBe(200);
  });
});

describe("transport-level abuse", () => {
  it("caps request bodies with 413", async () => {
    const res = await svc.request("/api/trial", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ agent_id: "x".repeat(70_000) }) });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("body_too_large");
  });
  it("rejects oversize headers without taking the process down", async () => {
    const res = await fetch(svc.url + "/api/status", { headers: { "x-big": "y".repeat(32 * 1024) } }).catch(() => null);
    if (res) expect(res.status).toBe(431);
    expect((await fetch(svc.url + "/healthz")).status).toBe(200);
  });
});

// --- Internal helpers ---

/** Lone surrogates cannot be percent-encoded; a client would send U+FFFD for them. */
function _encode(value: string): string {
  return encodeURIComponent(value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD"));
}

/** fetch refuses header values with CR/LF or non-Latin-1; those never reach a server anyway. */
function _safeHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => /^[\t\x20-\x7e\x80-\xff]*$/.test(v)));
}
