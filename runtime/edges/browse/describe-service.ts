/**
 * The agent-facing description of `GET /` and the `Accept` negotiation that picks it: a
 * projection of the catalogue and manifest already in memory, built once per build.
 */
import { parseQualityList } from "../../shared/http/quality-list.ts";
import type { ServiceDescription } from "../../shared/schema/service-description.ts";
import type { Artifacts } from "../../state/releases/artifacts.ts";

/**
 * True when `application/json` is acceptable and ranks at least as high as `text/html` (by
 * q-value, then by order). Browsers list text/html first, so they get the page.
 * @example prefersJson("application/json") === true; prefersJson("text/html,*\/*;q=0.8") === false
 */
export function prefersJson(accept: string | null): boolean {
  if (!accept) return false;
  const ranked = parseQualityList(accept);
  const best = (match: (t: string) => boolean) =>
    ranked.filter((r) => match(r.value) && r.q > 0).sort((a, b) => b.q - a.q || a.order - b.order)[0];
  const json = best((t) => t === "application/json" || t === "application/*");
  const html = best((t) => t === "text/html" || t === "text/*" || t === "*/*");
  if (!json) return false;
  if (!html) return true;
  return json.q > html.q || (json.q === html.q && json.order < html.order);
}

export function describeService(build: Artifacts): ServiceDescription {
  let hit = _cache.get(build);
  if (!hit) _cache.set(build, (hit = _describe(build)));
  return hit;
}

// --- Internal helpers ---

// Keyed by the build object: a new build gets a fresh description without any invalidation step.
const _cache = new WeakMap<Artifacts, ServiceDescription>();

function _describe(build: Artifacts): ServiceDescription {
  return {
    object: "service_description",
    name: "Vertical Knowledge Retrieval Service",
    description:
      "Structured, validated, cited knowledge for AI agents in regulated fields. The index layer is free; content layers need a key, a per-use payment token, or a fully open vertical.",
    api_version: build.catalog.api_version,
    build_id: build.buildId,
    links: {
      openapi: "/openapi.json",
      docs: "/docs",
      status: "/api/status",
      browse: "/browse",
      llms_txt: "/llms.txt",
      llms_full_txt: "/llms-full.txt",
      mcp: "/mcp",
      trial: "POST /api/trial",
    },
    verticals: build.catalog.verticals.map((v) => ({
      slug: v.slug,
      title: v.title,
      status: v.status,
      index_free: v.index_free,
      fully_open: v.fully_open,
      nodes: v.node_count,
      index: `/api/demo?vertical=${v.slug}`,
    })),
    authentication: {
      key_header: "X-Service-Key",
      payment_header: "pay-network-pay-id",
      trial: 'POST /api/trial with {"agent_id": "…"} returns a 24-hour key',
    },
  };
}
