/**
 * Stage 8, manifest: the last file written, describing all the others. `build_id` is the hash of
 * every file digest, so the same content always has the same id (no wall clock anywhere).
 */
import { type Manifest, ManifestSchema } from "../../runtime/shared/schema/artifacts.ts";
import { shortDigest } from "../digest.ts";
import { compileSchema } from "../schema/validator.ts";
import type { BuildSigningKey } from "../signing-key.ts";
import { type EmitContext, emitArtifact } from "./emit.ts";
import type { VerticalGraph } from "./link.ts";
import { signArtifacts } from "./sign.ts";

export const MANIFEST_FILE = "manifest.json";
const checkManifest = compileSchema(ManifestSchema);

export interface ManifestInput {
  apiVersion: string;
  graphs: readonly VerticalGraph[];
  /** sha256 of every other emitted file, by path relative to `dist/data`. */
  files: ReadonlyMap<string, string>;
  /** Lean/full size ratio of every node. */
  ratios: readonly number[];
  /** The key the served files are signed with, once the build id is known. */
  signing: BuildSigningKey;
}

/** Builds, checks and emits the manifest; returns it. */
export function emitManifest(input: ManifestInput, ctx: Pick<EmitContext, "diagnostics" | "sink">): Manifest {
  const files = Object.fromEntries([...input.files].sort(([a], [b]) => (a < b ? -1 : 1)));
  const manifest: Manifest = {
    build_id: shortDigest(
      Object.entries(files)
        .map(([path, digest]) => `${path}\t${digest}\n`)
        .join(""),
    ),
    api_version: input.apiVersion,
    content_date: toContentDate(input.graphs),
    node_count: input.graphs.reduce((n, g) => n + g.nodes.length, 0),
    verticals: Object.fromEntries(
      input.graphs.map((g) => [
        g.slug,
        {
          root: g.index.root,
          nodes: Object.fromEntries(
            g.nodes.map((n) => [
              n.id,
              {
                version: n.version,
                order: n.frontmatter.order,
                trial: n.trial,
                status: n.frontmatter.status,
                ...(n.frontmatter.review_by ? { review_by: n.frontmatter.review_by } : {}),
              },
            ]),
          ),
        },
      ]),
    ),
    files,
    lean_ratio: input.ratios.length ? Math.round((input.ratios.reduce((a, b) => a + b, 0) / input.ratios.length) * 10_000) / 10_000 : 0,
  };
  manifest.signing = signArtifacts(manifest, input.signing);
  emitArtifact(MANIFEST_FILE, manifest, checkManifest, ctx);
  return manifest;
}

/** Latest authored date of any node: the build's notion of "now". Epoch when there is no content. */
export function toContentDate(graphs: readonly VerticalGraph[]): string {
  let latest = "1970-01-01T00:00:00Z";
  for (const g of graphs) {
    for (const n of g.nodes) {
      for (const at of [n.dates.created, n.dates.updated, n.dates.deprecated_at]) if (at && at > latest) latest = at;
    }
  }
  return latest;
}
