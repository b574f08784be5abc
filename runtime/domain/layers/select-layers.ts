/**
 * `layers=logic,action`: a node response carrying only the named layers. The build cannot
 * precompute all 15 selections of every variant, so the runtime derives them from the prebuilt
 * bytes once and keeps the result in a small LRU owned by the app (never a module-level cache),
 * keyed by the artifact's digest: a hot selection is served as bytes like any other artifact.
 */

import type { KnowledgeIdentity, SignatureHeaders } from "../../shared/answer-signature.ts";
import { boundedCache } from "../../shared/cache.ts";
import { apiError } from "../../shared/errors.ts";
import { LAYER_NAMES, type LayerName } from "../../shared/schema/catalog.ts";
import type { Artifact } from "../../state/releases/artifacts.ts";

export interface LayerSelector {
  /** The artifact with only `layers` kept and `node.selected_layers` set; cached by digest. */
  select(artifact: Artifact, layers: readonly LayerName[]): Artifact;
}

/**
 * The layers named in a `layers` value, deduplicated and in canonical order (logic, directive,
 * skill, action), so `action,logic` and `logic,action` share one cache entry and one ETag.
 * @example parseLayerSelection("action,logic") // ["logic", "action"]
 */
export function parseLayerSelection(value: string): LayerName[] {
  const names = value.split(",").map((n) => n.trim());
  const unknown = names.filter((n) => !(LAYER_NAMES as readonly string[]).includes(n));
  if (value.trim() === "" || unknown.length > 0) {
    throw apiError("validation_failed", {
      detail: `"layers" takes a comma-separated list of ${LAYER_NAMES.join(", ")}${
        unknown.length
          ? `; unknown: ${unknown
              .slice(0, 4)
              .map((n) => `"${n.slice(0, 40)}"`)
              .join(", ")}`
          : ""
      }.`,
      errors: [{ pointer: "/query/layers", message: `must list layers among ${LAYER_NAMES.join(", ")}` }],
    });
  }
  return LAYER_NAMES.filter((name) => names.includes(name));
}

/**
 * `sign` signs each selection once, when it is derived (it is cached with it).
 * @example const selector = createLayerSelector({ maxEntries: 256, sign: (bytes, identity) => signer.sign(bytes, identity) })
 */
export function createLayerSelector(options: {
  maxEntries: number;
  sign: (bytes: Uint8Array, identity: KnowledgeIdentity) => SignatureHeaders;
}): LayerSelector {
  const cache = boundedCache<string, Artifact>(options.maxEntries);
  return {
    select(artifact, layers) {
      const key = `${artifact.etag}|${layers.join("+")}`;
      const hit = cache.get(key);
      if (hit) return hit;
      const selected = _select(artifact, layers, options.sign);
      cache.set(key, selected);
      return selected;
    },
  };
}

// --- Internal helpers ---

function _select(
  artifact: Artifact,
  layers: readonly LayerName[],
  sign: (bytes: Uint8Array, identity: KnowledgeIdentity) => SignatureHeaders,
): Artifact {
  const body = JSON.parse(Buffer.from(artifact.bytes).toString("utf8")) as {
    node: { layers: Record<string, unknown>; selected_layers?: LayerName[] };
  };
  const kept: Record<string, unknown> = Object.create(null);
  for (const name of layers) if (Object.hasOwn(body.node.layers, name)) kept[name] = body.node.layers[name];
  body.node.layers = kept;
  body.node.selected_layers = [...layers];
  // A distinct strong ETag per selection: same digest, suffixed by the selection (no commas,
  // which would split an If-None-Match list).
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const identity = artifact.identity ? { ...artifact.identity, layers: layers.join("+") } : null;
  return {
    bytes,
    etag: `${artifact.etag.slice(0, -1)}.${layers.join("+")}"`,
    identity,
    signature: identity ? sign(bytes, identity) : null,
  };
}
