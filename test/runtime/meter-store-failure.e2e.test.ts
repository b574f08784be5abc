/**
 * A keyed read the store cannot meter is refused with the catalogue's 503, never served unmetered;
 * the operator sees why: one error log line with the request id and the store's own cause.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { issueKey } from "../mcp/_setup.ts";

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()));
  key = await issueKey(svc, "travel");
}, 60_000);
afterAll(() => svc?.close());

describe("a store that fails while metering a key", () => {
  it("answers the 503 problem and logs the request id with the store's cause", async () => {
    const { backend } = svc.service.deps;
    const consume = backend.consume;
    backend.consume = async () => {
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6390"), { code: "ECONNREFUSED" });
    };
    try {
      const res = await svc.request("/api/demo?vertical=travel&node=trv-m1", { headers: { "x-service-key": key } });
      expect(res.status).toBe(503);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.body.code).toBe("store_unavailable");
      expect(res.headers.get("retry-after")).toBe("5");
      const requestId = res.headers.get("x-request-id");
      expect(requestId).toBeTruthy();
      const lines = svc.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === "error");
      const line = lines.find((l) => l.request_id === requestId);
      expect(line).toMatchObject({
        code: "store_unavailable",
        cause: "connect ECONNREFUSED 127.0.0.1:6390",
        cause_code: "ECONNREFUSED",
      });
      // Nothing secret: the presented key is never in the logs.
      expect(svc.logs.join("\n")).not.toContain(key);
    } finally {
      backend.consume = consume;
    }
  });
});
