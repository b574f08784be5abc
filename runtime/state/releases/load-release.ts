/**
 * Loads one release from the store and verifies it before anything is served from it: the
 * manifest's `build_id` must be the id it was published under AND the hash of its file digests
 * (as the build computes it), and every file listed in `manifest.files` must be present with
 * exactly that sha256. Files are held in memory, so a verified release can no longer change
 * underneath the instance.
 */
import { createHash } from "node:crypto";
import type { Storage } from "unstorage";
import type { Manifest } from "../../shared/schema/artifacts.ts";
import { type Artifacts, readArtifacts } from "./artifacts.ts";
import { readReleaseBytes, releaseFileKey, releaseManifestKey } from "./release-store.ts";

/** Files fetched at once; bounds the memory and connections of a load. */
const PARALLEL_READS = 32;

export class ReleaseRejectedError extends Error {}

export async function loadRelease(store: Storage, buildId: string): Promise<Artifacts> {
  const manifestBytes = await readReleaseBytes(store, releaseManifestKey(buildId));
  if (!manifestBytes) throw new ReleaseRejectedError(`release ${buildId} has no manifest`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(Buffer.from(manifestBytes).toString("utf8")) as Manifest;
  } catch {
    throw new ReleaseRejectedError(`release ${buildId}: manifest.json does not parse`);
  }
  if (!manifest || typeof manifest.files !== "object" || manifest.build_id !== buildId)
    throw new ReleaseRejectedError(`release ${buildId}: manifest names build ${String(manifest?.build_id)}`);
  if (computeBuildId(manifest.files) !== buildId)
    throw new ReleaseRejectedError(`release ${buildId}: build id does not match the manifest's file digests`);

  const files = new Map<string, Uint8Array>([["manifest.json", manifestBytes]]);
  const entries = Object.entries(manifest.files);
  for (let i = 0; i < entries.length; i += PARALLEL_READS) {
    await Promise.all(
      entries.slice(i, i + PARALLEL_READS).map(async ([rel, digest]) => {
        const bytes = await readReleaseBytes(store, releaseFileKey(buildId, rel));
        if (!bytes) throw new ReleaseRejectedError(`release ${buildId}: ${rel} is missing`);
        if (_sha256(bytes) !== digest) throw new ReleaseRejectedError(`release ${buildId}: ${rel} does not match its digest`);
        files.set(rel, bytes);
      }),
    );
  }
  return readArtifacts(async (rel) => {
    const bytes = files.get(rel);
    if (!bytes) throw new Error(`release ${buildId} has no file ${rel}`);
    return bytes;
  });
}

/** The build's id rule (build/stages/manifest.ts): 16 hex of sha256 over sorted "path\tdigest\n" lines. */
export function computeBuildId(files: Record<string, string>): string {
  const lines = Object.entries(files)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([path, digest]) => `${path}\t${digest}\n`)
    .join("");
  return _sha256(lines).slice(0, 16);
}

// --- Internal helpers ---

function _sha256(input: string | Uint8Array): string {
  return createHash("sha256").update(input).digest("hex");
}
