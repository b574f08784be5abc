/**
 * A client that goes away in the middle of its body, or sends it too slowly, is
 * the client's doing. It is logged at info with its own status (499 closed by the client, 408 too
 * slow) and counted under that status in the metrics, never as a 5xx nor an "unhandled error",
 * so nobody can fill the error log or set off 5xx alerts by hanging up.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
beforeAll(
  async () =>
    void (svc = await startTestService(buildContentTo(writeFixtureContent()), { HEADERS_TIMEOUT_MS: "400", REQUEST_TIMEOUT_MS: "800" })),
);
afterAll(() => svc?.close());

const HALF_BODY =
  'POST /api/waitlist HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"vertical":';

/** Opens a socket, writes `data`, then either destroys it after `destroyAfterMs` or waits for the server to close it. */
function send(data: string, destroyAfterMs: number | null): Promise<string> {
  const { port, hostname } = new URL(svc.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(data);
      if (destroyAfterMs !== null) setTimeout(() => socket.destroy(), destroyAfterMs);
    });
    let text = "";
    socket.on("data", (d) => (text += d));
    socket.on("error", () => {});
    socket.on("close", () => resolve(text));
    setTimeout(() => socket.destroy(), 8_000);
  });
}

/** The log lines (parsed) for requests to `path` written since `from`, waiting until `count` of them arrive. */
async function requestLogs(from: number, path: string, count: number): Promise<any[]> {
  for (let i = 0; i < 100; i++) {
    const lines = svc.logs.slice(from).map((l) => JSON.parse(l));
    const found = lines.filter((l) => l.target === path || l.route === path);
    if (found.length >= count) return lines;
    await new Promise((r) => setTimeout(r, 50));
  }
  return svc.logs.slice(from).map((l) => JSON.parse(l));
}

async function requestCount(status: number): Promise<number> {
  const text = (await svc.request("/metrics")).text;
  const line = text
    .split("\n")
    .find((l) => l.startsWith(`vkr_http_requests_total{route="/api/waitlist",method="POST",status="${status}"}`));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

describe("clients that do not finish their body", () => {
  it("a client that aborts mid-body is logged at info as 499 and counted as 499, never as an error or 5xx", async () => {
    const from = svc.logs.length;
    for (let i = 0; i < 3; i++) await send(HALF_BODY, 50);
    const lines = await requestLogs(from, "/api/waitlist", 3);
    expect(lines.filter((l) => l.level === "error" || l.level === "warn")).toEqual([]);
    const requests = lines.filter((l) => l.msg === "request" && l.target === "/api/waitlist");
    expect(requests.map((l) => [l.level, l.status])).toEqual([
      ["info", 499],
      ["info", 499],
      ["info", 499],
    ]);
    expect(await requestCount(499)).toBe(3);
    expect(await requestCount(500)).toBe(0);
  });

  it("a client whose body is too slow gets 408, logged at info and counted as 408, never as an error or 5xx", async () => {
    const from = svc.logs.length;
    const answer = await send(HALF_BODY, null);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    const lines = await requestLogs(from, "/api/waitlist", 1);
    expect(lines.filter((l) => l.level === "error" || l.level === "warn")).toEqual([]);
    const requests = lines.filter((l) => l.msg === "request" && l.target === "/api/waitlist");
    expect(requests.map((l) => [l.level, l.status])).toEqual([["info", 408]]);
    expect(await requestCount(408)).toBe(1);
    expect(await requestCount(500)).toBe(0);
  });
});
