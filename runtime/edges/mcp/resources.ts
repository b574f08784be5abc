/**
 * MCP resources with stable URIs: `vkr://<vertical>` is a vertical's root index,
 * `vkr://<vertical>/<node>` one node (aliases such as `vkr://ethics/…` read the same resource).
 * Reading one is `get_node` / `get_index` with the REST defaults (wrapper fields included): same
 * access, same metering. `vkr://about` holds the wrapper fields once (community note, confidence
 * calibration, node types, performance preview, call to action): the tools leave them out by
 * default, so an agent reads them once per session instead of with every node.
 */

import type { Caller } from "../../domain/access/credentials.ts";
import { viewOf } from "../../domain/access/decide-read.ts";
import { servedSignature } from "../../domain/signing/answer-signer.ts";
import { type ApiError, isApiError } from "../../shared/errors.ts";
import { logProblemCause } from "../../shared/http/log-cause.ts";
import { problemBody } from "../../shared/http/problem.ts";
import { WRAPPER_FIELDS } from "../../shared/schema/artifacts.ts";
import type { Artifacts } from "../../state/releases/artifacts.ts";
import { readContent } from "./content.ts";
import type { McpContext } from "./context.ts";
import { RPC, RpcError } from "./jsonrpc.ts";

const MIME = "application/json";

export interface ResourceEntry {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
}

/** The template clients can fill in for any node. */
export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: "vkr://{vertical}/{node}",
    name: "node",
    title: "A knowledge node",
    description: "One node of a vertical, as get_node returns it",
    mimeType: MIME,
  },
  {
    uriTemplate: "vkr://{vertical}",
    name: "index",
    title: "A vertical's root index",
    description: "Every node of a vertical with summary and layer_tokens",
    mimeType: MIME,
  },
];

/**
 * Every index and node of the live verticals whose index `caller` may see (titles and summaries
 * are the index layer, so nothing gated is listed).
 */
export async function listResources(build: Artifacts, caller: Caller): Promise<ResourceEntry[]> {
  const out: ResourceEntry[] = [ABOUT_ENTRY];
  for (const vertical of build.catalog.verticals) {
    if (vertical.status !== "live" || viewOf({ caller, vertical, node: null }) === null) continue;
    out.push({
      uri: `vkr://${vertical.slug}`,
      name: `${vertical.slug}-index`,
      title: `${vertical.title}: index`,
      description: `Root index of ${vertical.title}`,
      mimeType: MIME,
    });
    // Titles and summaries come from the search index, which holds the index layer already parsed.
    const docs = new Map((await build.search(vertical.slug))?.docs.map((d) => [d.id, d]));
    const nodes = Object.entries(build.manifest.verticals[vertical.slug]?.nodes ?? {}).sort(([, a], [, b]) => a.order - b.order);
    for (const [id] of nodes) {
      const doc = docs.get(id);
      out.push({
        uri: `vkr://${vertical.slug}/${id}`,
        name: id,
        title: doc?.title ?? id,
        description: doc?.summary ?? `Node ${id} of ${vertical.title}`,
        mimeType: MIME,
      });
    }
  }
  return out;
}

/** resources/read: the same JSON REST serves, or -32002 (unknown) / -32001 (refused, with the problem). */
export async function readResource(ctx: McpContext, uri: string) {
  if (uri === ABOUT_ENTRY.uri) return { contents: [{ uri, mimeType: MIME, text: await _aboutText(ctx.deps.build.current) }] };
  const target = _parseUri(uri);
  if (!target) throw new RpcError(RPC.resourceNotFound, "Resource not found", { uri });
  try {
    const answer = await readContent(ctx, { vertical: target.vertical, node: target.node });
    const signature = servedSignature(ctx.deps.shared.signer, answer, ctx.now);
    return {
      contents: [{ uri, mimeType: MIME, text: Buffer.from(answer.bytes).toString("utf8"), ...(signature ? { _meta: signature } : {}) }],
    };
  } catch (error) {
    if (!isApiError(error)) throw error;
    logProblemCause(ctx.deps.logger, ctx.requestId, error);
    if (error.code === "vertical_unknown" || error.code === "node_not_found")
      throw new RpcError(RPC.resourceNotFound, "Resource not found", { uri });
    throw _accessError(ctx, error);
  }
}

// --- Internal helpers ---

const ABOUT_ENTRY: ResourceEntry = {
  uri: "vkr://about",
  name: "about",
  title: "About this knowledge: how to read it, confidence, node types, community",
  description:
    "The notes every full REST answer carries (community_note, confidence_calibration, node_types_explained, performance_preview, cta), once; get_node and get_index leave them out unless lean is false",
  mimeType: MIME,
};

/** The wrapper fields are the same on every artifact of a build: taken from one full index, once per build. */
const aboutByBuild = new WeakMap<Artifacts, string>();
async function _aboutText(build: Artifacts): Promise<string> {
  const cached = aboutByBuild.get(build);
  if (cached !== undefined) return cached;
  const vertical = build.catalog.verticals.find((v) => v.status === "live");
  const index = vertical
    ? (JSON.parse(Buffer.from((await build.index(vertical.slug, false)).bytes).toString("utf8")) as Record<string, unknown>)
    : {};
  const text = JSON.stringify(Object.fromEntries(WRAPPER_FIELDS.filter((f) => f in index).map((f) => [f, index[f]])));
  aboutByBuild.set(build, text);
  return text;
}

const SEGMENT_RE = /^[A-Za-z0-9][\w.-]{0,199}$/;

function _parseUri(uri: string): { vertical: string; node: string | null } | null {
  if (typeof uri !== "string" || !uri.startsWith("vkr://")) return null;
  const parts = uri.slice("vkr://".length).replace(/\/$/, "").split("/");
  if (parts.length > 2 || !parts.every((p) => SEGMENT_RE.test(p))) return null;
  return { vertical: parts[0]!, node: parts[1] ?? null };
}

function _accessError(ctx: McpContext, error: ApiError): RpcError {
  const problem = problemBody(error, { requestId: ctx.requestId, baseUrl: ctx.deps.config.publicBaseUrl });
  return new RpcError(RPC.accessDenied, `${problem.title}: ${problem.detail}`, problem);
}
