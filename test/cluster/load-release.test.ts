/**
 * Release verification without servers: what `loadRelease` refuses (so an instance keeps serving
 * its build), what `uploadRelease` refuses to publish, and how the release store is chosen.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ConfigError, resolveReleaseStore, resolveRuntimeConfig } from "../../runtime/config.ts";
import { loadRelease } from "../../runtime/state/releases/load-release.ts";
import { createReleaseStore } from "../../runtime/state/releases/release-store.ts";
import { uploadRelease } from "../../scripts/publish-release.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";

let dist: string;
let buildId: string;

beforeAll(() => {
  dist = buildContentTo(writeFixtureContent());
  buildId = JSON.parse(readFileSync(join(dist, "data", "manifest.json"), "utf8")).build_id;
});

/** A folder store holding the fixture release, and that folder. */
async function uploaded() {
  const dir = mkdtempSync(join(tmpdir(), "vkr-rel-"));
  const store = await createReleaseStore({ kind: "dir", dir });
  await uploadRelease(store, dist);
  return { dir, store, releaseDir: join(dir, "releases", buildId) };
}

describe("loadRelease", () => {
  it("loads a verified release with the same content as the build folder", async () => {
    const { store } = await uploaded();
    const artifacts = await loadRelease(store, buildId);
    expect(artifacts.buildId).toBe(buildId);
    const node = await artifacts.node("travel", "trv-m1", "full");
    expect(Buffer.from(node.bytes).equals(readFileSync(join(dist, "data", "verticals", "travel", "nodes", "trv-m1.json")))).toBe(true);
  });

  it("refuses a missing file, a changed file, a changed manifest and an unknown id", async () => {
    const missing = await uploaded();
    rmSync(join(missing.releaseDir, "files", "verticals", "travel", "nodes", "trv-m2.json"));
    await expect(loadRelease(missing.store, buildId)).rejects.toThrow("verticals/travel/nodes/trv-m2.json is missing");

    const changed = await uploaded();
    writeFileSync(join(changed.releaseDir, "files", "catalog.json"), "{}\n");
    await expect(loadRelease(changed.store, buildId)).rejects.toThrow("catalog.json does not match its digest");

    // A manifest edited to match a changed file no longer hashes to its build id.
    const forged = await uploaded();
    const manifestFile = join(forged.releaseDir, "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
    manifest.files["catalog.json"] = "0".repeat(64);
    writeFileSync(manifestFile, JSON.stringify(manifest));
    await expect(loadRelease(forged.store, buildId)).rejects.toThrow("build id does not match");

    await expect(loadRelease(forged.store, "0123456789abcdef")).rejects.toThrow("has no manifest");
  });
});

describe("uploadRelease", () => {
  it("refuses to publish a build whose files do not match its manifest", async () => {
    const broken = mkdtempSync(join(tmpdir(), "vkr-broken-dist-"));
    cpSync(dist, broken, { recursive: true });
    writeFileSync(join(broken, "data", "status.json"), "{}\n");
    const store = await createReleaseStore({ kind: "dir", dir: mkdtempSync(join(tmpdir(), "vkr-rel-")) });
    await expect(uploadRelease(store, broken)).rejects.toThrow("status.json does not match");
    expect(await store.getKeys()).toEqual([]);
  });
});

describe("release store configuration", () => {
  it("RELEASE_REDIS_URL, else RELEASE_DIR, else REDIS_URL, else none", () => {
    expect(resolveReleaseStore({ RELEASE_REDIS_URL: "redis://a", RELEASE_DIR: "rel", REDIS_URL: "redis://b" })).toEqual({
      kind: "redis",
      url: "redis://a",
      prefix: "vkr:rel:",
    });
    expect(resolveReleaseStore({ RELEASE_DIR: "rel", REDIS_URL: "redis://b" })).toMatchObject({ kind: "dir" });
    expect(resolveReleaseStore({ REDIS_URL: "redis://b", REDIS_PREFIX: "prod:" })).toEqual({
      kind: "redis",
      url: "redis://b",
      prefix: "prod:rel:",
    });
    expect(resolveReleaseStore({})).toBeNull();
  });

  it("REDIS_PREFIX may not contain braces; RELEASE_POLL_MS is bounded", () => {
    expect(() => resolveRuntimeConfig({ REDIS_PREFIX: "a{b}:" })).toThrow(ConfigError);
    expect(() => resolveRuntimeConfig({ RELEASE_POLL_MS: "0" })).toThrow(ConfigError);
    expect(resolveRuntimeConfig({ REDIS_URL: "redis://h:6379" })).toMatchObject({
      redisUrl: "redis://h:6379",
      redisPrefix: "vkr:",
      releasePollMs: 2000,
    });
  });
});
