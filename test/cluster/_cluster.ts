/**
 * Several bundled servers (child processes) sharing one Redis under a key prefix unique to the
 * test run, and the cleanup of that prefix afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";

export const SHARED_REDIS_URL = "redis://127.0.0.1:6379";
export const CLUSTER_ADMIN_KEY = "cluster-admin-secret-0123456789";

/** A fresh prefix such as `vkr-test:1a2b3c4d:`, so parallel runs never share keys. */
export function uniquePrefix(): string {
  return `vkr-test:${randomBytes(4).toString("hex")}:`;
}

export async function startInstances(count: number, env: Record<string, string>): Promise<ChildServer[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      startChildServer({
        DATA_DIR: mkdtempSync(join(tmpdir(), "vkr-cluster-")),
        ADMIN_KEY: CLUSTER_ADMIN_KEY,
        LOG_LEVEL: "warn",
        ANON_RATE_PER_MINUTE: "1000000",
        ...env,
      }),
    ),
  );
}

/** Deletes every key under `prefix` on the Redis at `url`. */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await admin.connect();
    let cursor = "0";
    do {
      const [next, keys] = await admin.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      if (keys.length) await admin.unlink(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    admin.disconnect();
  }
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

/** Per-minute limits count per calendar minute: a burst must not straddle two. */
export async function awayFromMinuteEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 8000) await new Promise((r) => setTimeout(r, left + 200));
}
