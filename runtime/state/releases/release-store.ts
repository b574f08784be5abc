/**
 * The release store: where `npm run publish` puts immutable, content-addressed builds and the
 * `current` pointer that every runtime instance follows. Any unstorage driver works; the config
 * names a folder (fs-lite, the embedded default) or Redis (shared deployments).
 *
 * Layout (unstorage keys; in a folder `:` becomes `/`):
 * - `releases:<build_id>:files:<path in data/>`  the build's files, written first;
 * - `releases:<build_id>:manifest.json`         its manifest, written last (= release complete);
 * - `current`                                    the pointer, a `ReleasePointer`.
 */
import { createStorage, type Storage } from "unstorage";
import fsLiteDriver from "unstorage/drivers/fs-lite";
import { connectRedisDriver } from "../storage/redis-connection.ts";

/**
 * Where the release store is, as config.ts reads it (`resolveReleaseStore`: RELEASE_REDIS_URL, else
 * RELEASE_DIR, else REDIS_URL): a folder, or Redis under a key prefix.
 */
export type ReleaseStoreConfig = { kind: "dir"; dir: string } | { kind: "redis"; url: string; prefix: string };

export interface ReleasePointer {
  build_id: string;
  published_at: string;
  /** Earlier releases, most recent first: what `--rollback` goes back to. */
  history: string[];
}

export const RELEASE_POINTER_KEY = "current";
const BUILD_ID_RE = /^[0-9a-f]{8,64}$/;

export function releaseManifestKey(buildId: string): string {
  return `releases:${buildId}:manifest.json`;
}

export function releaseFileKey(buildId: string, rel: string): string {
  return `releases:${buildId}:files:${rel}`;
}

/** Opens the store (for Redis: connected, commands failing fast while it is unreachable). */
export async function createReleaseStore(config: ReleaseStoreConfig): Promise<Storage> {
  if (config.kind === "dir") return createStorage({ driver: fsLiteDriver({ base: config.dir }) });
  const { driver } = await connectRedisDriver({
    url: config.url,
    base: config.prefix.replace(/:$/, ""),
    commandTimeoutMs: 5000,
    label: "release-store",
  });
  return createStorage({ driver });
}

/** The pointer, or null when nothing was published yet or it does not parse as one. */
export async function readReleasePointer(store: Storage): Promise<ReleasePointer | null> {
  const raw = await store.getItem<unknown>(RELEASE_POINTER_KEY);
  return isReleasePointer(raw) ? raw : null;
}

export function isReleasePointer(value: unknown): value is ReleasePointer {
  if (!value || typeof value !== "object") return false;
  const v = value as Partial<ReleasePointer>;
  return (
    typeof v.build_id === "string" &&
    BUILD_ID_RE.test(v.build_id) &&
    typeof v.published_at === "string" &&
    Array.isArray(v.history) &&
    v.history.every((h) => typeof h === "string" && BUILD_ID_RE.test(h))
  );
}

/** A file's bytes as stored (drivers without raw support hand back base64 or plain strings). */
export async function readReleaseBytes(store: Storage, key: string): Promise<Uint8Array | null> {
  const raw = await store.getItemRaw<unknown>(key);
  if (raw === null || raw === undefined) return null;
  if (raw instanceof Uint8Array) return raw;
  if (typeof raw === "string") return Buffer.from(raw, "utf8");
  return null;
}
