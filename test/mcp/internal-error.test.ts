/**
 * An unexpected failure inside a method is JSON-RPC -32603 with only a request id: the cause is
 * logged, never sent. Forced with a state store whose counter read breaks (verify_key reads it).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveRuntimeConfig } from "../../runtime/config.ts";
import { createLogger } from "../../runtime/shared/logger.ts";
import { type RunningService, startService } from "../../runtime/start.ts";
import { createSqliteBackend } from "../../runtime/state/storage/sqlite-backend.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY } from "../helpers/test-service.ts";
import { MCP_HEADERS } from "./_setup.ts";

const SECRET = "internal detail: table counters is locked at /var/lib/x";
let service: RunningService;
const logs: string[] = [];
let breakCounters = false;

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "vkr-state-"));
  const config = resolveRuntimeConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DIST_DIR: buildContentTo(writeFixtureContent()),
    ADMIN_KEY,
    LOG_LEVEL: "info",
  });
  const backend = createSqliteBackend({ dataDir });
  const broken = {
    ...backend,
    readCounters: (keys: string[], now: number) => (breakCounters ? Promise.reject(new Error(SECRET)) : backend.readCounters(keys, now)),
  };
  service = await startService(config, { backend: broken, logger: createLogger("info", (l) => logs.push(l)) });
});
afterAll(() => service?.close());

describe("internal errors", () => {
  it("answer -32603 with a request id and log the cause", async () => {
    const issued = await fetch(`${service.url}/api/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ vertical: "travel" }),
    });
    const key = ((await issued.json()) as { keys: Array<{ key: string }> }).keys[0]!.key;
    breakCounters = true;
    const res = await fetch(`${service.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, "x-service-key": key },
      body: JSON.stringify({ jsonrpc: "2.0", id: 11, method: "tools/call", params: { name: "verify_key", arguments: {} } }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      jsonrpc: "2.0",
      id: 11,
      error: { code: -32603, message: expect.stringMatching(/^Internal error; request id [\w-]+\.$/) },
    });
    expect(text).not.toContain("locked");
    expect(logs.some((l) => l.includes("mcp method failed") && l.includes("table counters is locked"))).toBe(true);
  });
});
