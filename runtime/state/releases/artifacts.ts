/**
 * Read-only view of a build (`dist/data`). The manifest, catalogue, status and changelog are
 * parsed once; node and index artifacts are served as the build wrote them (bytes, never
 * re-serialised) and kept in memory after their first read, the least recently used (CLOCK) dropped once
 * they pass `cacheBytes`, so a build far larger than memory (10,000 nodes are about 0.8 GB over
 * their four variants) is served from a bounded working set. ETags are the manifest's file
 * digests, so they change exactly when the bytes do.
 */
import { readFile, realpath } from "node:fs/promises";
import { join } from "node:path";
import {
  assembleHeaders,
  contentDigestFromHex,
  formatIdentity,
  type KnowledgeIdentity,
  type SignatureHeaders,
} from "../../shared/answer-signature.ts";
import { boundedCache } from "../../shared/cache.ts";
import { identityOfFile } from "../../shared/file-identity.ts";
import type { ChangelogEntry, LogicLayer, Manifest } from "../../shared/schema/artifacts.ts";
import type { Catalog, ResolvedVertical } from "../../shared/schema/catalog.ts";
import type { StatusStatic } from "../../shared/schema/status.ts";
import { type LoadedSearchIndex, readSearchIndex } from "./search-index.ts";

export type NodeVariant = "full" | "lean" | "locked" | "locked.lean";

export interface Artifact {
  bytes: Uint8Array;
  etag: string;
  /** What the bytes are (runtime/domain/signing/); null for a file that is not an answer. */
  identity: KnowledgeIdentity | null;
  /** The build's signature headers for these bytes; null when the build signed none (an unsigned build). */
  signature: SignatureHeaders | null;
}

export interface NodeMeta {
  id: string;
  vertical: string;
  order: number;
  trial: boolean;
  version: string;
}

export interface Artifacts {
  readonly buildId: string;
  /**
   * The build's own folder (`dist/.builds/<build_id>`, what `dist/data` pointed at when it was
   * loaded); null for a release held in memory. Every read goes there, never through `dist/data`.
   */
  readonly dir: string | null;
  readonly manifest: Manifest;
  readonly catalog: Catalog;
  readonly status: StatusStatic;
  readonly changelog: readonly ChangelogEntry[];
  /** Canonical vertical for any accepted slug (the one place `ethics` becomes `ai-compliance`). */
  resolveVertical(slug: string): ResolvedVertical | null;
  nodeMeta(vertical: string, id: string): NodeMeta | null;
  /** The artifact itself once read (no promise, so a hot read awaits nothing), its read in progress before. */
  node(vertical: string, id: string, variant: NodeVariant): Artifact | Promise<Artifact>;
  index(vertical: string, lean: boolean): Artifact | Promise<Artifact>;
  /** The compiled logic layer of a node (for rule evaluation), parsed once. */
  logic(vertical: string, id: string): Promise<LogicLayer | null>;
  /** The vertical's prebuilt search index (`search/<vertical>.json`), parsed once; null when the build has none. */
  search(vertical: string): Promise<LoadedSearchIndex | null>;
}

const NODE_SUFFIX: Record<NodeVariant, string> = {
  full: ".json",
  lean: ".lean.json",
  locked: ".locked.json",
  "locked.lean": ".locked.lean.json",
};
const VARIANTS = Object.keys(NODE_SUFFIX) as NodeVariant[];

export interface ArtifactsOptions {
  /** Bytes of artifacts kept in memory; the default suits the hot set of a large build. */
  cacheBytes?: number;
  /** The folder the files are read from, reported as `Artifacts.dir`. */
  dir?: string;
}

const DEFAULT_ARTIFACT_CACHE_BYTES = 128 * 1024 * 1024;

/**
 * Loads the build `<distDir>/data` points at. The link is resolved once, here: a build published
 * later swaps the link, not the files this view reads, so a server never pairs one build's
 * manifest (node list, ETags) with another build's bytes. Following a new build is a new load
 * (runtime/state/releases/watch-dist.ts).
 */
export async function loadArtifacts(distDir: string, options: ArtifactsOptions = {}): Promise<Artifacts> {
  const dir = await resolveBuildDir(distDir);
  return readArtifacts((rel) => readFile(join(dir, rel)), { ...options, dir });
}

/** The folder `<distDir>/data` resolves to now (the published build's own folder). */
export function resolveBuildDir(distDir: string): Promise<string> {
  return realpath(join(distDir, "data"));
}

/**
 * The same read-only view over any source of a build's files, by path relative to `data/`: a
 * folder (`loadArtifacts`) or a verified release held in memory (runtime/state/releases/).
 */
export async function readArtifacts(readBytes: (rel: string) => Promise<Uint8Array>, options: ArtifactsOptions = {}): Promise<Artifacts> {
  const readJson = async <T>(rel: string): Promise<T> => JSON.parse(Buffer.from(await readBytes(rel)).toString("utf8")) as T;
  const manifest = await readJson<Manifest>("manifest.json");
  const [catalog, status, changelog] = await Promise.all([
    readJson<Catalog>("catalog.json"),
    readJson<StatusStatic>("status.json"),
    readJson<{ entries: ChangelogEntry[] }>("changelog.json"),
  ]);

  const verticals = new Map(catalog.verticals.map((v) => [v.slug, v]));
  // By vertical, then id, each node with its files' paths made once: a read looks a node up twice
  // (its meta, then its bytes), and a key joined from the request's names on every read cost a
  // string built, joined and hashed each time.
  const nodes = new Map<string, Map<string, { meta: NodeMeta; rels: Record<NodeVariant, string> }>>();
  for (const [vertical, v] of Object.entries(manifest.verticals)) {
    const byId = new Map<string, { meta: NodeMeta; rels: Record<NodeVariant, string> }>();
    nodes.set(vertical, byId);
    for (const [id, n] of Object.entries(v.nodes)) {
      const rels = Object.fromEntries(VARIANTS.map((variant) => [variant, _nodeRel(vertical, id, variant)])) as Record<NodeVariant, string>;
      byId.set(id, { meta: { id, vertical, order: n.order, trial: n.trial, version: n.version }, rels });
    }
  }
  const relOf = (vertical: string, id: string, variant: NodeVariant) =>
    nodes.get(vertical)?.get(id)?.rels[variant] ?? _nodeRel(vertical, id, variant);
  const bytes = _createArtifactCache(options.cacheBytes ?? DEFAULT_ARTIFACT_CACHE_BYTES);
  const logic = boundedCache<string, Promise<LogicLayer | null>>(LOGIC_CACHE_ENTRIES);
  const search = new Map<string, Promise<LoadedSearchIndex | null>>();

  const load = (rel: string): Artifact | Promise<Artifact> =>
    bytes.get(rel) ??
    bytes.add(
      rel,
      readBytes(rel).then((b) => {
        const identity = identityOfFile(rel, manifest);
        return {
          bytes: new Uint8Array(b.buffer, b.byteOffset, b.byteLength),
          etag: `"${(manifest.files[rel] ?? "").slice(0, 32)}"`,
          identity,
          signature: _buildSignature(manifest, rel, identity),
        };
      }),
    );

  return {
    buildId: manifest.build_id,
    dir: options.dir ?? null,
    manifest,
    catalog,
    status,
    changelog: changelog.entries,
    resolveVertical: (slug) => {
      const canonical = Object.hasOwn(catalog.slugs, slug) ? catalog.slugs[slug]! : null;
      return canonical ? (verticals.get(canonical) ?? null) : null;
    },
    nodeMeta: (vertical, id) => nodes.get(vertical)?.get(id)?.meta ?? null,
    node: (vertical, id, variant) => load(relOf(vertical, id, variant)),
    index: (vertical, lean) => load(`verticals/${vertical}/index${lean ? ".lean" : ""}.json`),
    logic: (vertical, id) => {
      // Keyed by the full node's path, made once per node like the reads' (no string joined per call).
      const rel = relOf(vertical, id, "full");
      let hit = logic.get(rel);
      if (!hit) {
        hit = Promise.resolve(load(rel)).then(
          (a) =>
            (JSON.parse(Buffer.from(a.bytes).toString("utf8")) as { node: { layers: { logic?: LogicLayer } } }).node.layers.logic ?? null,
        );
        logic.set(rel, hit);
      }
      return hit;
    },
    search: (vertical) => {
      let hit = search.get(vertical);
      if (!hit) {
        const rel = `search/${vertical}.json`;
        hit = Object.hasOwn(manifest.files, rel) ? Promise.resolve(load(rel)).then((a) => readSearchIndex(a.bytes)) : Promise.resolve(null);
        search.set(vertical, hit);
      }
      return hit;
    },
  };
}

// --- Internal helpers ---

function _nodeRel(vertical: string, id: string, variant: NodeVariant): string {
  return `verticals/${vertical}/nodes/${id}${NODE_SUFFIX[variant]}`;
}

/** The headers of the build's signature of a file, assembled once when the file is first read. */
function _buildSignature(manifest: Manifest, rel: string, identity: KnowledgeIdentity | null): SignatureHeaders | null {
  const signing = manifest.signing;
  const signature = signing && Object.hasOwn(signing.signatures, rel) ? signing.signatures[rel]! : null;
  if (!signing || !identity || signature === null || !Object.hasOwn(manifest.files, rel)) return null;
  return assembleHeaders(signing.kid, contentDigestFromHex(manifest.files[rel]!), formatIdentity(identity), signature);
}

/** Parsed logic layers kept for rule evaluation; small objects, so a count bound is enough. */
const LOGIC_CACHE_ENTRIES = 20_000;

/**
 * Artifact bytes by path, bounded by `maxBytes` with the CLOCK policy (second chance): a hit only
 * marks its entry as used; eviction walks from the oldest entry, moving used ones to the back
 * and dropping the first unused one. Close to least-recently-used, with a property write per hit
 * instead of a Map delete and set (which were 1.4% of a metered request's CPU).
 */
function _createArtifactCache(maxBytes: number) {
  // `read` is the artifact once its read settled: handed out as it is, not as a settled promise.
  const entries = new Map<string, { artifact: Promise<Artifact>; read: Artifact | null; size: number; used: boolean }>();
  let total = 0;
  const evict = () => {
    while (total > maxBytes && entries.size > 1) {
      const [rel, entry] = entries.entries().next().value!;
      entries.delete(rel);
      if (entry.used) {
        entry.used = false;
        entries.set(rel, entry);
      } else total -= entry.size;
    }
  };
  return {
    get(rel: string): Artifact | Promise<Artifact> | undefined {
      const entry = entries.get(rel);
      if (entry === undefined) return undefined;
      entry.used = true;
      return entry.read ?? entry.artifact;
    },
    add(rel: string, artifact: Promise<Artifact>): Promise<Artifact> {
      const entry = { artifact, read: null as Artifact | null, size: 0, used: false };
      entries.set(rel, entry);
      artifact.then(
        (a) => {
          if (entries.get(rel) !== entry) return; // evicted or replaced while reading
          entry.read = a;
          entry.size = a.bytes.byteLength;
          total += entry.size;
          evict();
        },
        () => {
          if (entries.get(rel) === entry) entries.delete(rel);
        },
      );
      return artifact;
    },
  };
}
