/**
 * Slow or stalled clients cannot hold a socket: a client that never finishes its headers, or its
 * body, gets 408 and a closed connection within the configured limits (shortened here).
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

/** Writes `data`, then waits for the server to close the socket; returns what it sent and when. */
function stall(data: string): Promise<{ text: string; ms: number }> {
  const { port, hostname } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname, () => socket.write(data));
    let text = "";
    socket.on("data", (d) => (text += d));
    socket.on("error", reject);
    socket.on("close", () => resolve({ text, ms: Date.now() - started }));
    // The test's own bound: far above the limits, far below vitest's timeout.
    setTimeout(() => socket.destroy(new Error("the server kept a stalled socket open")), 8_000);
  });
}

describe("slow clients", () => {
  it("a client that never finishes its headers gets 408 and is disconnected", async () => {
    const { text } = await stall("GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n");
    expect(text).toMatch(/^HTTP\/1\.1 408/);
  });

  it("a client that stalls in the middle of its body gets 408 and is disconnected", async () => {
    const { text } = await stall(
      'POST /api/waitlist HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"vertical":',
    );
    expect(text).toMatch(/^HTTP\/1\.1 408/);
  });

  it("the service keeps answering others meanwhile", async () => {
    const [stalled, status] = await Promise.all([stall("GET /api/status HTTP/1.1\r\n"), svc.request("/api/status")]);
    expect(status.status).toBe(200);
    expect(stalled.text).toMatch(/^HTTP\/1\.1 408/);
  });
});
