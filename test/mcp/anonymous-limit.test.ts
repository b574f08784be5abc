/** Anonymous searches (REST and the MCP tool) obey the per-client limit of GET /api/demo; a key lifts it. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { issueKey, rpc, startMcpService } from "./_setup.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startMcpService(undefined, { ANON_RATE_PER_MINUTE: "3" });
});
afterAll(() => svc?.close());

describe("anonymous limit", () => {
  it("answers 429 with Retry-After beyond the limit on GET /api/search", async () => {
    for (let i = 0; i < 3; i++) expect((await svc.request("/api/search?q=fixture")).status).toBe(200);
    const limited = await svc.request("/api/search?q=fixture");
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const key = await issueKey(svc, "travel");
    expect((await svc.request("/api/search?q=fixture", { headers: { "x-service-key": key } })).status).toBe(200);
  });

  it("turns the search tool into an isError result beyond the limit", async () => {
    const call = () => rpc(svc, "tools/call", { name: "search", arguments: { q: "fixture" } });
    for (let i = 0; i < 3; i++) expect((await call()).result.isError).toBeFalsy();
    const limited = await call();
    expect(limited.result.isError).toBe(true);
    expect(limited.result.content[0].text).toContain("rate_limited");
  });
});
