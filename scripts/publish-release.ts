/**
 * Publishing a finished build as a release (see runtime/state/releases/release-store.ts for the layout):
 * `uploadRelease` checks the build in `<dist>/data` against its own manifest and uploads it under
 * its build id (files first, manifest last, never overwriting an existing release);
 * `activateRelease` flips the `current` pointer; `rollbackRelease` points back to the previous one.
 * `publishRelease` is the whole publication (or rollback) that both command lines run, `vkr
 * publish` (cli/commands/publish.ts) and `npm run publish` (scripts/publish-command.ts): they only
 * parse their arguments and print its outcome in their own words.
 */
import { createHash } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Storage } from "unstorage";
import { readInputStamp } from "../build/input-stamp.ts";
import type { ReleaseStoreConfig } from "../runtime/config.ts";
import { resolveReleaseStore, resolveRuntimeConfig, resolveSigning } from "../runtime/config.ts";
import { appendAudit, cliActor } from "../runtime/domain/audit/audit-log.ts";
import type { Manifest } from "../runtime/shared/schema/artifacts.ts";
import { computeBuildId } from "../runtime/state/releases/load-release.ts";
import {
  createReleaseStore,
  RELEASE_POINTER_KEY,
  type ReleasePointer,
  readReleasePointer,
  releaseFileKey,
  releaseManifestKey,
} from "../runtime/state/releases/release-store.ts";
import { openBackend } from "../runtime/state/storage/open-backend.ts";

/** How many earlier releases the pointer remembers for rollback. */
const HISTORY_LENGTH = 20;
const PARALLEL_WRITES = 32;

export interface UploadResult {
  buildId: string;
  files: number;
  /** False when the release was already in the store (releases are immutable). */
  uploaded: boolean;
}

/** What a publication did: the release uploaded (or found) and made current, or the rollback. */
export type PublishOutcome =
  | { kind: "published"; upload: UploadResult; pointer: ReleasePointer }
  | { kind: "rolled_back"; pointer: ReleasePointer };

/** The release store `env` names, as the runtime reads it; the folder `./releases` when it names none. */
export function publishStore(env: NodeJS.ProcessEnv): ReleaseStoreConfig {
  return resolveReleaseStore(env) ?? { kind: "dir", dir: resolve("releases") };
}

/** How the command lines name a release store: `folder <dir>` or `redis (prefix <prefix>)`. */
export function describeReleaseStore(config: ReleaseStoreConfig): string {
  return config.kind === "dir" ? `folder ${config.dir}` : `redis (prefix ${config.prefix})`;
}

/**
 * Publishes the build in `dist` to the release store `config` and makes it current (refusing a
 * development build unless `allowDevBuild`, and a build signed by a key `env` does not publish),
 * or with `rollback` points back to the previous release; either is recorded in the audit trail
 * of the state store `env` names. Throws, with one sentence saying why, on any refusal.
 */
export async function publishRelease(
  config: ReleaseStoreConfig,
  options: { dist: string; rollback?: boolean; allowDevBuild?: boolean; env: NodeJS.ProcessEnv },
): Promise<PublishOutcome> {
  const store = await createReleaseStore(config);
  try {
    if (options.rollback) {
      const pointer = await rollbackRelease(store, config);
      await recordRelease("release.rolled_back", pointer.build_id, { previous: pointer.history[0] ?? null }, options.env);
      return { kind: "rolled_back", pointer };
    }
    const dist = resolve(options.dist);
    await assertReleaseBuild(dist, { allowDevBuild: options.allowDevBuild ?? false, publishedKids: publishedSigningKids(options.env) });
    const upload = await uploadRelease(store, dist);
    const pointer = await activateRelease(store, config, upload.buildId);
    await recordRelease(
      "release.published",
      pointer.build_id,
      { uploaded: upload.uploaded, previous: pointer.history[0] ?? null },
      options.env,
    );
    return { kind: "published", upload, pointer };
  } finally {
    await store.dispose();
  }
}

/**
 * Refuses to publish a development build: one that may carry TODO placeholders, example.org
 * sources or draft nodes, which a `--release` build refuses or leaves out. The build's stamp says
 * how `dist/` was built; `allowDevBuild` is for a staging store that wants drafts.
 */
export async function assertReleaseBuild(
  distDir: string,
  options: { allowDevBuild?: boolean; publishedKids?: ReadonlySet<string> } = {},
): Promise<void> {
  const manifest = JSON.parse(await readFile(join(distDir, "data", "manifest.json"), "utf8")) as Pick<Manifest, "build_id" | "signing">;
  const stamp = readInputStamp(distDir);
  if (options.allowDevBuild || (stamp?.release && stamp.build_id === manifest.build_id))
    return _assertSignedByPublishedKey(distDir, manifest, options);
  const why = !stamp
    ? "it has no build stamp (input-stamp.json)"
    : stamp.build_id !== manifest.build_id
      ? `its stamp names build ${stamp.build_id}, not ${manifest.build_id}`
      : "it was built without --release";
  throw new Error(
    `${distDir} is not a release build: ${why}. A development build may carry TODO placeholders, example.org sources and draft nodes. ` +
      "Build it with `vkr build --release` (or `npm run build:release`), or pass --allow-dev-build to publish it anyway.",
  );
}

/**
 * The keys a deployment publishes at /.well-known/jwks.json, read from the environment as the
 * runtime reads it (SIGNING_KEY, SIGNING_PREVIOUS_KEYS).
 */
export function publishedSigningKids(env: Record<string, string | undefined>): Set<string> {
  const signing = resolveSigning(env);
  return new Set([...(signing.key ? [signing.key.kid] : []), ...signing.previous.map((k) => k.kid)]);
}

export async function uploadRelease(store: Storage, distDir: string): Promise<UploadResult> {
  const dataDir = join(distDir, "data");
  const manifestBytes = await readFile(join(dataDir, "manifest.json"));
  const manifest = JSON.parse(manifestBytes.toString("utf8")) as Manifest;
  const buildId = manifest.build_id;
  if (computeBuildId(manifest.files) !== buildId)
    throw new Error(`manifest build_id ${buildId} does not match its file digests; rebuild before publishing`);
  const entries = Object.entries(manifest.files);
  if (await store.hasItem(releaseManifestKey(buildId))) return { buildId, files: entries.length, uploaded: false };

  // 1. Every file must match the manifest before anything is uploaded.
  const files = new Map<string, Buffer>();
  for (const [rel, digest] of entries) {
    const bytes = await readFile(join(dataDir, rel));
    if (createHash("sha256").update(bytes).digest("hex") !== digest)
      throw new Error(`${rel} does not match the manifest's digest; rebuild before publishing`);
    files.set(rel, bytes);
  }
  // 2. Files, then the manifest: a release without its manifest does not exist for readers.
  for (let i = 0; i < entries.length; i += PARALLEL_WRITES) {
    await Promise.all(
      entries.slice(i, i + PARALLEL_WRITES).map(([rel]) => store.setItemRaw(releaseFileKey(buildId, rel), files.get(rel)!)),
    );
  }
  await store.setItemRaw(releaseManifestKey(buildId), manifestBytes);
  return { buildId, files: entries.length, uploaded: true };
}

/** Points `current` at an uploaded release; a no-op when it already is current. */
export async function activateRelease(
  store: Storage,
  config: ReleaseStoreConfig,
  buildId: string,
  now = new Date(),
): Promise<ReleasePointer> {
  if (!(await store.hasItem(releaseManifestKey(buildId)))) throw new Error(`release ${buildId} is not in the store; upload it first`);
  const pointer = await readReleasePointer(store);
  if (pointer?.build_id === buildId) return pointer;
  const history = pointer ? [pointer.build_id, ...pointer.history.filter((id) => id !== pointer.build_id)].slice(0, HISTORY_LENGTH) : [];
  const next: ReleasePointer = { build_id: buildId, published_at: now.toISOString(), history };
  await _writePointer(store, config, next);
  return next;
}

/** Points `current` back at the previous release. */
export async function rollbackRelease(store: Storage, config: ReleaseStoreConfig, now = new Date()): Promise<ReleasePointer> {
  const pointer = await readReleasePointer(store);
  if (!pointer) throw new Error("nothing is published yet; there is no release to roll back from");
  const previous = pointer.history[0];
  if (!previous) throw new Error(`release ${pointer.build_id} is the only one published; there is nothing to roll back to`);
  if (!(await store.hasItem(releaseManifestKey(previous)))) throw new Error(`previous release ${previous} is no longer in the store`);
  const next: ReleasePointer = { build_id: previous, published_at: now.toISOString(), history: pointer.history.slice(1) };
  await _writePointer(store, config, next);
  return next;
}

// --- Internal helpers ---

/** In a folder: write-temp + rename, so an instance never reads a half-written pointer. */
async function _writePointer(store: Storage, config: ReleaseStoreConfig, pointer: ReleasePointer): Promise<void> {
  if (config.kind !== "dir") return store.setItem(RELEASE_POINTER_KEY, pointer);
  const target = join(config.dir, RELEASE_POINTER_KEY);
  const temp = `${target}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(pointer));
  await rename(temp, target);
}

/**
 * A release's answers must verify against the deployment's published keys: a build signed by a
 * key the deployment does not publish is refused, and so is a development key's unless
 * --allow-dev-build (the runtime then publishes that build's key with it).
 */
function _assertSignedByPublishedKey(
  distDir: string,
  manifest: Pick<Manifest, "signing">,
  options: { allowDevBuild?: boolean; publishedKids?: ReadonlySet<string> },
): void {
  const signing = manifest.signing;
  if (!signing) throw new Error(`${distDir} is not signed (its manifest has no signatures); rebuild it with this version`);
  if (signing.dev) {
    if (options.allowDevBuild) return;
    throw new Error(
      `${distDir} is signed with a development key (${signing.kid}): build the release with SIGNING_KEY set to the deployment's key`,
    );
  }
  const published = options.publishedKids ?? new Set<string>();
  if (!published.has(signing.kid)) {
    throw new Error(
      `${distDir} is signed by key ${signing.kid}, which this deployment does not publish (${published.size ? [...published].join(", ") : "no key: SIGNING_KEY is not set here"}); ` +
        "publish with the deployment's SIGNING_KEY (and SIGNING_PREVIOUS_KEYS) in the environment, or rebuild with its key",
    );
  }
}

/**
 * Records a publication or rollback in the audit trail of the deployment's state store (the one
 * its instances use: REDIS_URL, else DATA_DIR). Publishing does not depend on it: a build machine
 * without access to that store says so on stderr and carries on. `env` names the store (`vkr
 * publish` passes the environment of its run, cli/io.ts).
 */
export async function recordRelease(
  action: "release.published" | "release.rolled_back",
  buildId: string,
  detail: Record<string, string | boolean | null>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  try {
    const backend = await openBackend(resolveRuntimeConfig(env));
    try {
      await appendAudit(backend, { actor: cliActor(), action, subject: `release:${buildId}`, outcome: "ok", detail }, Date.now());
    } finally {
      await backend.close();
    }
  } catch (error) {
    process.stderr.write(`publish: not recorded in the audit trail (${error instanceof Error ? error.message : String(error)})\n`);
  }
}
