/**
 * The test tiers (test/tiers.ts) mean what they say: a test file that names Redis or a browser is
 * listed outside the unit tier, and inside it (this file runs there) the guard of
 * test/helpers/unit-tier.ts refuses a Redis connection, a redis-server or Chromium, and a child
 * process handed a Redis locator, while other children start as usual.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Cluster, Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { BROWSER, LISTED, REDIS } from "../tiers.ts";

/** What a file that needs Redis or a browser shows in its own text. */
const NEEDS_REDIS = /from "ioredis"|import\("ioredis"\)|"redis-server"|redis-topology\.ts|SHARED_REDIS_URL|createRedisBackend/;
const NEEDS_BROWSER = /from "playwright-core"/;

function testFiles(dir = "test"): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith(".test.ts") ? [join(dir, e.name)] : [],
  );
}

describe("test tiers", () => {
  const files = testFiles();
  const unit = files.filter((f) => !LISTED.includes(f));

  it("finds test files in every tier", () => {
    expect(unit.length).toBeGreaterThan(50);
    expect(files.length).toBe(unit.length + LISTED.length);
  });

  it("lists every file that names Redis or a browser outside the unit tier", () => {
    // This file names both, to test the guard.
    const here = "test/contract/test-tiers.test.ts";
    const text = (f: string) => readFileSync(f, "utf8");
    expect(unit.filter((f) => f !== here && NEEDS_REDIS.test(text(f)))).toEqual([]);
    expect(unit.filter((f) => f !== here && NEEDS_BROWSER.test(text(f)))).toEqual([]);
    expect(REDIS.filter((f) => !NEEDS_REDIS.test(text(f)))).toEqual([]);
    expect(BROWSER.filter((f) => !NEEDS_BROWSER.test(text(f)))).toEqual([]);
  });

  it("refuses a Redis or Redis Cluster client in the unit tier", async () => {
    expect(() => new Redis("redis://127.0.0.1:6379")).toThrow(/unit tier.*test\/tiers\.ts/);
    expect(() => new Cluster([{ host: "127.0.0.1", port: 7000 }])).toThrow(/unit tier/);
    const lazy = new Redis("redis://127.0.0.1:6379", { lazyConnect: true });
    await expect(Promise.resolve().then(() => lazy.connect())).rejects.toThrow(/unit tier/);
  });

  it("refuses starting redis-server or Chromium, or a child with a Redis locator", () => {
    expect(() => spawn("redis-server", ["--port", "0"])).toThrow(/starting redis-server: the unit tier/);
    expect(() => execFileSync("/usr/bin/chromium", ["--version"])).toThrow(/starting chromium: the unit tier/);
    expect(() => spawn(process.execPath, ["-e", ""], { env: { REDIS_URL: "redis://127.0.0.1:6379" } })).toThrow(
      /child process with REDIS_URL: the unit tier/,
    );
    expect(() => execFileSync(process.execPath, ["-e", ""], { env: { REDIS_SENTINELS: "127.0.0.1:26379" } })).toThrow(
      /child process with REDIS_SENTINELS/,
    );
  });

  it("refuses them through promisify(execFile) too, which still resolves stdout and stderr", async () => {
    await expect(promisify(execFile)("redis-cli", ["ping"])).rejects.toThrow(/starting redis-cli: the unit tier/);
    expect(await promisify(execFile)(process.execPath, ["-e", "process.stdout.write('ok')"])).toEqual({ stdout: "ok", stderr: "" });
  });

  it("starts every other child process as usual", () => {
    expect(execFileSync(process.execPath, ["-e", "process.stdout.write('ok')"], { encoding: "utf8" })).toBe("ok");
  });
});
