/**
 * Crash safety of acknowledged writes: the bundled server is killed with SIGKILL in the middle of
 * a burst of key creations; after a restart on the same DATA_DIR every key that was answered 201
 * still verifies. Then a SIGTERM drains gracefully (exit code 0).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { startChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";

const ADMIN = "crash-admin-secret-123456";

describe("kill -9 during a burst of key creations", () => {
  it("keeps every key that was answered 201", async () => {
    const env = { DIST_DIR: buildContentTo(writeFixtureContent()), DATA_DIR: mkdtempSync(join(tmpdir(), "vkr-crash-")), ADMIN_KEY: ADMIN };
    const first = await startChildServer(env);
    const acknowledged: string[] = [];
    let stop = false;
    const worker = async () => {
      while (!stop) {
        try {
          const res = await fetch(first.url + "/api/keys", {
            method: "POST",
            headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
            body: JSON.stringify({ vertical: "travel", quantity: 2 }),
          });
          if (res.status === 201) acknowledged.push(...((await res.json()) as { keys: Array<{ key: string }> }).keys.map((k) => k.key));
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    await new Promise((r) => setTimeout(r, 400 + Math.random() * 400));
    await first.kill("SIGKILL");
    stop = true;
    await Promise.all(workers);
    expect(acknowledged.length).toBeGreaterThan(10);

    const second = await startChildServer(env);
    try {
      const results = await Promise.all(
        acknowledged.map((key) =>
          fetch(second.url + "/api/verify", { headers: { "x-service-key": key } }).then((r) => r.json() as Promise<{ valid: boolean }>),
        ),
      );
      expect(results.filter((r) => !r.valid)).toHaveLength(0);
      const output = second.output();
      for (const key of acknowledged.slice(0, 5)) expect(output).not.toContain(key);
    } finally {
      await second.kill("SIGTERM");
    }
    expect(second.proc.exitCode).toBe(0);
  });
});
