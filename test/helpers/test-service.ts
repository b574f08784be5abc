/**
 * Starts the real service in-process on a free port, over a built fixture dist and a throwaway
 * SQLite store, with an injected clock. `request()` speaks real HTTP and checks every answer
 * against the OpenAPI description.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveRuntimeConfig } from "../../runtime/config.ts";
import { createManualClock } from "../../runtime/shared/clock.ts";
import { createLogger } from "../../runtime/shared/logger.ts";
import { type RunningService, startService } from "../../runtime/start.ts";
import { createOpenApiChecker } from "./openapi-check.ts";

export const ADMIN_KEY = "test-admin-secret-0123456789";
/** 2026-11-22T10:30:00Z: mid-hour, so hour windows do not roll over during a test by accident. */
export const T0 = Date.UTC(2026, 10, 22, 10, 30, 0);

export interface TestService {
  service: RunningService;
  url: string;
  clock: ReturnType<typeof createManualClock>;
  logs: string[];
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function startTestService(distDir: string, env: Record<string, string> = {}): Promise<TestService> {
  const clock = createManualClock(T0);
  const logs: string[] = [];
  const config = resolveRuntimeConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: mkdtempSync(join(tmpdir(), "vkr-state-")),
    DIST_DIR: distDir,
    ADMIN_KEY,
    LOG_LEVEL: "info",
    ...env,
  });
  const service = await startService(config, { clock, logger: createLogger("info", (l) => logs.push(l)) });
  const check = createOpenApiChecker();
  return {
    service,
    url: service.url,
    clock,
    logs,
    async request(path, init = {}) {
      const headers = new Headers(init.headers);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(init.json);
      }
      const res = await fetch(service.url + path, { ...init, headers, body });
      const text = await res.text();
      const type = res.headers.get("content-type");
      let parsed: unknown = text;
      if (type?.includes("json") && text) parsed = JSON.parse(text);
      const method = init.method ?? "GET";
      const problems = check(method, new URL(service.url + path).pathname, res.status, type, parsed);
      if (problems.length) throw new Error(`OpenAPI mismatch:\n${problems.join("\n")}\nbody: ${text.slice(0, 500)}`);
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    close: () => service.close(),
  };
}
