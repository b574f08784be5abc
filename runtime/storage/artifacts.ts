/**
 * Read-only view of a build (`dist/data`). The manifest, catalogue, status and changelog are
 * parsed once; node and index artifacts are served as the build wrote them (bytes, never
 * re-serialised) and kept in memory after their first read. ETags are the manifest's file digests,
 * so they change exactly when the bytes do.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Catalog, ResolvedVertical } from "../schema/catalog.ts";
import type { ChangelogEntry, LogicLayer, Manifest } from "../schema/artifacts.ts";
import type { StatusStatic } from "../schema/status.ts";
import type { SearchIndex } from "../schema/search.ts";

export type NodeVariant = "full" | "lean" | "locked" | "locked.lean";

export interface Artifact {
  bytes: Uint8Array;
  etag: string;
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
  readonly manifest: Manifest;
  readonly catalog: Catalog;
  readonly status: StatusStatic;
  readonly changelog: readonly ChangelogEntry[];
  /** Canonical vertical for any accepted slug (the one place `ethics` becomes `ai-compliance`). */
  resolveVertical(slug: string): ResolvedVertical | null;
  nodeMeta(vertical: string, id: string): NodeMeta | null;
  node(vertical: string, id: string, variant: NodeVariant): Promise<Artifact>;
  index(vertical: string, lean: boolean): Promise<Artifact>;
  /** The compiled logic layer of a node (for rule evaluation), parsed once. */
  logic(vertical: string, id: string): Promise<LogicLayer | null>;
  /** The vertical's prebuilt search index (`search/<vertical>.json`), parsed once; null when the build has none. */
  search(vertical: string): Promise<SearchIndex | null>;
}

const NODE_SUFFIX: Record<NodeVariant, string> = { full: ".json", lean: ".lean.json", locked: ".locked.json", "locked.lean": ".locked.lean.json" };

export async function loadArtifacts(distDir: string): Promise<Artifacts> {
  const dataDir = join(distDir, "data");
  return readArtifacts((rel) => readFile(join(dataDir, rel)));
}

/**
 * The same read-only view over any source of a build's files, by path relative to `data/`: a
 * folder (`loadArtifacts`) or a verified release held in memory (runtime/releases/).
 */
export async function readArtifacts(readBytes: (rel: string) => Promise<Uint8Array>): Promise<Artifacts> {
  const readJson = async <T>(rel: string): Promise<T> => JSON.parse(Buffer.from(await readBytes(rel)).toString("utf8")) as T;
  const manifest = await readJson<Manifest>("manifest.json");
  const [catalog, status, changelog] = await Promise.all([
    readJson<Catalog>("catalog.json"),
    readJson<StatusStatic>("status.json"),
    readJson<{ entries: ChangelogEntry[] }>("changelog.json"),
  ]);

  const verticals = new Map(catalog.verticals.map((v) => [v.slug, v]));
  const metas = new Map<string, NodeMeta>();
  for (const [vertical, v] of Object.entries(manifest.verticals)) {
    for (const [id, n] of Object.entries(v.nodes)) metas.set(`${vertical}/${id}`, { id, vertical, order: n.order, trial: n.trial, version: n.version });
  }
  const bytes = new Map<string, Promise<Artifact>>();
  const logic = new Map<string, Promise<LogicLayer | null>>();
  const search = new Map<string, Promise<SearchIndex | null>>();

  const load = (rel: string): Promise<Artifact> => {
    let hit = bytes.get(rel);
    if (!hit) {
      const digest = manifest.files[rel];
      hit = readBytes(rel).then((b) => ({ bytes: new Uint8Array(b.buffer, b.byteOffset, b.byteLength), etag: `"${(digest ?? "").slice(0, 32)}"` }));
      hit.catch(() => bytes.delete(rel));
      bytes.set(rel, hit);
    }
    return hit;
  };

  return {
    buildId: manifest.build_id,
    manifest,
    catalog,
    status,
    changelog: changelog.entries,
    resolveVertical: (slug) => {
      const canonical = Object.hasOwn(catalog.slugs, slug) ? catalog.slugs[slug]! : null;
      return canonical ? (verticals.get(canonical) ?? null) : null;
    },
    nodeMeta: (vertical, id) => metas.get(`${vertical}/${id}`) ?? null,
    node: (vertical, id, variant) => load(`verticals/${vertical}/nodes/${id}${NODE_SUFFIX[variant]}`),
    index: (vertical, lean) => load(`verticals/${vertical}/index${lean ? ".lean" : ""}.json`),
    logic: (vertical, id) => {
      const key = `${vertical}/${id}`;
      let hit = logic.get(key);
      if (!hit) {
        hit = load(`verticals/${vertical}/nodes/${id}.json`).then(
          (a) => (JSON.parse(Buffer.from(a.bytes).toString("utf8")) as { node: { layers: { logic?: LogicLayer } } }).node.layers.logic ?? null,
        );
        logic.set(key, hit);
      }
      return hit;
    },
    search: (vertical) => {
      let hit = search.get(vertical);
      if (!hit) {
        const rel = `search/${vertical}.json`;
        hit = Object.hasOwn(manifest.files, rel) ? load(rel).then((a) => JSON.parse(Buffer.from(a.bytes).toString("utf8")) as SearchIndex) : Promise.resolve(null);
        search.set(vertical, hit);
      }
      return hit;
    },
  };
}
