/**
 * Publishing with the embedded default: releases in a folder (RELEASE_DIR), one instance on its
 * SQLite store following the pointer. Covers the folder layout, idempotent re-publishing and the
 * refusals of the publish command.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { buildDataInProcess } from "../helpers/build-in-process.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { getJson } from "./_cluster.ts";
import { runPublish, runPublishInProcess } from "./_publish.ts";

const releaseDir = mkdtempSync(join(tmpdir(), "vkr-releases-"));
const env = { RELEASE_DIR: releaseDir };
let v1: string;
let v2: string;
let instance: TestService;

const buildIdOf = (dist: string) =>
  (JSON.parse(readFileSync(join(dist, "data", "manifest.json"), "utf8")) as { build_id: string }).build_id;

beforeAll(async () => {
  v1 = buildContentTo(writeFixtureContent());
  // A development build is published with --allow-dev-build, so v2 needs no CLI-made stamp: built in-process.
  v2 = await buildDataInProcess(writeFixtureContent(undefined, { extraNodes: { travel: [{ id: "trv-m8", order: 8, next: [] }] } }));
});

afterAll(async () => {
  await instance?.close();
});

describe("releases in a folder", () => {
  it("refuses to roll back when nothing is published", async () => {
    const result = await runPublishInProcess(["--rollback"], env);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("nothing is published yet");
  });

  it("publishes a build as files under its id, then the pointer", async () => {
    const result = await runPublish(["--dist", v1], env);
    expect(result.code).toBe(0);
    const id = buildIdOf(v1);
    expect(existsSync(join(releaseDir, "releases", id, "manifest.json"))).toBe(true);
    expect(existsSync(join(releaseDir, "releases", id, "files", "verticals", "travel", "nodes", "trv-m1.json"))).toBe(true);
    expect(JSON.parse(readFileSync(join(releaseDir, "current"), "utf8"))).toMatchObject({ build_id: id, history: [] });
    // Publishing the same build again changes nothing.
    const again = await runPublishInProcess(["--dist", v1], env);
    expect(again.output).toContain(`already present: release ${id}`);
    expect(JSON.parse(readFileSync(join(releaseDir, "current"), "utf8")).history).toEqual([]);
  });

  it("an instance follows the folder's pointer and rolls back with it", async () => {
    // In-process: following the pointer needs no process of its own (nothing here is killed).
    instance = await startTestService(v1, { ...env, RELEASE_POLL_MS: "100" });
    expect((await getJson(`${instance.url}/readyz`)).body).toMatchObject({ build_id: buildIdOf(v1), store: "sqlite" });
    expect((await runPublishInProcess(["--dist", v2], env)).code).toBe(0);
    await waitFor(async () => (await getJson(`${instance.url}/readyz`)).body.build_id === buildIdOf(v2));
    expect((await getJson(`${instance.url}/api/demo?vertical=travel&node=trv-m8`)).status).toBe(200);
    expect((await runPublishInProcess(["--rollback"], env)).output).toContain(`current release is ${buildIdOf(v1)}`);
    await waitFor(async () => (await getJson(`${instance.url}/readyz`)).body.build_id === buildIdOf(v1));
    expect((await getJson(`${instance.url}/api/demo?vertical=travel&node=trv-m8`)).status).toBe(404);
  });
});

// --- Internal helpers ---

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
