/**
 * Which knowledge a prebuilt file is, from its path and the manifest: the one rule the build
 * (when it signs) and the runtime (when it serves the signature) share, so both state the same
 * `Knowledge-Identity` for the same bytes.
 */

import type { KnowledgeIdentity } from "./answer-signature.ts";
import type { Manifest } from "./schema/artifacts.ts";

const NODE_FILE_RE = /^verticals\/([^/]+)\/nodes\/([^./]+)\.((?:locked\.)?(?:lean\.)?)json$/;
const INDEX_FILE_RE = /^verticals\/([^/]+)\/index\.(lean\.)?json$/;

/** Null for a file that is not served as an answer (catalogue, status, search index, …). */
export function identityOfFile(rel: string, manifest: Pick<Manifest, "build_id" | "verticals">): KnowledgeIdentity | null {
  const node = NODE_FILE_RE.exec(rel);
  if (node) {
    const [, vertical, id, suffix] = node as unknown as [string, string, string, string];
    const meta =
      Object.hasOwn(manifest.verticals, vertical) && Object.hasOwn(manifest.verticals[vertical]!.nodes, id)
        ? manifest.verticals[vertical]!.nodes[id]!
        : null;
    if (!meta) return null;
    return { vertical, node: id, version: meta.version, view: suffix === "" ? "full" : suffix.slice(0, -1), build: manifest.build_id };
  }
  const index = INDEX_FILE_RE.exec(rel);
  if (index) return { vertical: index[1]!, view: index[2] ? "index.lean" : "index", build: manifest.build_id };
  return null;
}
