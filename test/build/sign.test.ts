/**
 * The build's signatures: every served file (node variants, indexes) is signed once,
 * at build time, over its Content-Digest and Knowledge-Identity; a development build says it used
 * a development key and keeps that key per output folder; a release build needs SIGNING_KEY; and
 * a release build of content a development build already published replaces the development
 * signatures instead of keeping them.
 */
import { createPublicKey, verify } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildContent } from "../../build/index.ts";
import { signingKeyFromEnv } from "../../build/signing-key.ts";
import { contentDigestFromHex, formatIdentity, signatureBase, signatureParams } from "../../runtime/shared/answer-signature.ts";
import { identityOfFile } from "../../runtime/shared/file-identity.ts";
import type { Manifest } from "../../runtime/shared/schema/artifacts.ts";
import { exportPrivateJwk, generateSigningKey } from "../../runtime/shared/signing-keys.ts";
import { createTempDir, materializeFixture } from "./_fixtures.ts";

const readManifest = (dist: string) => JSON.parse(readFileSync(join(dist, "data", "manifest.json"), "utf8")) as Manifest;

describe("build signatures", () => {
  it("signs every node variant and index (and nothing else) with a development key when none is given, and says so", async () => {
    const tmp = createTempDir();
    const dist = join(tmp, "dist");
    const result = await buildContent({ contentDir: materializeFixture(tmp), outDir: dist, rootDir: tmp });
    expect(result.ok).toBe(true);
    const manifest = readManifest(dist);
    const signing = manifest.signing!;
    expect(signing).toMatchObject({ alg: "ed25519", dev: true, kid: signing.public_key.kid });
    const served = Object.keys(manifest.files).filter((rel) => /^verticals\/[^/]+\/(nodes\/[^/]+|index(\.lean)?)\.json$/.test(rel));
    expect(served.length).toBeGreaterThan(4);
    expect(Object.keys(signing.signatures).sort()).toEqual(served.sort());
    expect(Object.keys(signing.signatures)).not.toContain("catalog.json");
    // Each signature checks with node:crypto over the RFC 9421 base rebuilt from the manifest.
    const key = createPublicKey({ key: signing.public_key, format: "jwk" });
    for (const rel of served) {
      const base = signatureBase(
        contentDigestFromHex(manifest.files[rel]!),
        formatIdentity(identityOfFile(rel, manifest)!),
        signatureParams(signing.kid),
      );
      expect(verify(null, Buffer.from(base), key, Buffer.from(signing.signatures[rel]!, "base64")), rel).toBe(true);
    }
  });

  it("keeps the development key of an output folder, so an unchanged rebuild publishes the same bytes", async () => {
    const tmp = createTempDir();
    const options = { contentDir: materializeFixture(tmp), outDir: join(tmp, "dist"), rootDir: tmp };
    await buildContent(options);
    const first = readFileSync(join(tmp, "dist", "data", "manifest.json"), "utf8");
    const again = await buildContent(options);
    expect(again.changed).toBe(false);
    expect(readFileSync(join(tmp, "dist", "data", "manifest.json"), "utf8")).toBe(first);
  });

  it("a release build of content a development build published carries the release key's signatures", async () => {
    const tmp = createTempDir();
    const options = { contentDir: materializeFixture(tmp), outDir: join(tmp, "dist"), rootDir: tmp };
    const dev = await buildContent(options);
    const releaseKey = generateSigningKey();
    const release = await buildContent({ ...options, release: true, signingKey: exportPrivateJwk(releaseKey) });
    expect(release.buildId).toBe(dev.buildId);
    expect(readManifest(join(tmp, "dist")).signing).toMatchObject({ kid: releaseKey.kid, dev: false });
  });

  it("a release build refuses to start without SIGNING_KEY; a development build does without", () => {
    expect(() => signingKeyFromEnv({}, true)).toThrow(/a release build needs SIGNING_KEY/);
    expect(signingKeyFromEnv({}, false)).toEqual({});
    expect(signingKeyFromEnv({ SIGNING_KEY: " key " }, true)).toEqual({ signingKey: "key" });
  });
});
