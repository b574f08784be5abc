/**
 * `llms.txt` and `llms-full.txt` (the llms.txt convention: an H1, a blockquote, then H2 sections of
 * markdown links); links are relative to the service's base URL. `llms.txt` lists the free index
 * layer and the ways in (HTTP, MCP); `llms-full.txt` adds every node's index layer and, for the
 * fully open verticals only, the full text of the four content layers with their rules.
 */
import type { IndexGraph, LogicLayer, NodeResponse } from "../../runtime/shared/schema/artifacts.ts";
import { LAYER_NAMES, type ResolvedVertical } from "../../runtime/shared/schema/catalog.ts";
import type { CompiledGate } from "../../runtime/shared/schema/rules.ts";

export interface LlmsVertical {
  vertical: ResolvedVertical;
  index: IndexGraph;
  /** Each node's artifact by id: the full one on a fully open vertical, else the locked (index-layer-only) one. */
  nodes: Map<string, NodeResponse>;
}

const INTRO = `# Vertical Knowledge Retrieval Service

> Structured, validated, cited knowledge for AI agents in regulated fields, grouped into verticals. Each vertical is a graph of nodes; every node has a free index layer and four content layers (logic, directive, skill, action). Rules are binary logic gates with confidence_required 1.0.

Fetch a vertical's index with \`GET /api/demo?vertical=<slug>\` and a node with \`&node=<id>\` (add \`&lean=true\` to drop the wrapper fields). Content layers need an \`X-Service-Key\` header: \`POST /api/trial\` with \`{"agent_id": "…"}\` gives a 24-hour trial key. The fully open verticals need no key.
`;

const MCP = `## MCP

- [MCP endpoint](/mcp): Model Context Protocol over Streamable HTTP (\`POST /mcp\`, JSON-RPC 2.0), the same knowledge as tools (list verticals, get an index or a node, search, evaluate rules, changes, verify a key), prompts and \`vkr://\` resources. Send the same \`X-Service-Key\` header for content layers. Example: \`claude mcp add --transport http vkr <base-url>/mcp --header "X-Service-Key: <key>"\`
`;

const DOCS = `## Docs

- [OpenAPI description](/openapi.json): every endpoint, parameter and error code
- [API reference](/docs): the same, for people
- [Status](/api/status): limits, cohorts and verticals
- [Full text](/llms-full.txt): every node's free index layer in one document, and the full content of the fully open verticals
`;

export function renderLlmsTxt(verticals: LlmsVertical[]): string {
  const list = verticals.map(
    ({ vertical, index }) =>
      `- [${index.title}](/api/demo?vertical=${vertical.slug}&lean=true): ${_oneLine(index.summary)} (${index.nodes.length} nodes, ${_access(vertical)})`,
  );
  const sections = verticals.map(({ vertical, index }) => {
    const nodes = _ordered(index).map(
      (n) => `- [${n.title}](/api/demo?vertical=${vertical.slug}&node=${n.id}&lean=true): ${_oneLine(n.summary)}`,
    );
    return `## ${index.title}\n\n${nodes.join("\n")}\n`;
  });
  return `${INTRO}\n## Verticals\n\n${list.join("\n")}\n\n${MCP}\n${DOCS}\n${sections.join("\n")}`;
}

export function renderLlmsFullTxt(verticals: LlmsVertical[]): string {
  const parts = verticals.map(({ vertical, index, nodes }) => {
    const entries = _ordered(index).map((entry) => {
      const node = nodes.get(entry.id)?.node;
      const next = entry.next_nodes.length ? entry.next_nodes.map((id) => `\`${id}\``).join(", ") : "none";
      const sources = node?.sources.map((s) => `  - ${s.url ? `[${s.title}](${s.url})` : s.title}`).join("\n") ?? "";
      return [
        `### ${entry.title}`,
        "",
        `- id: \`${entry.id}\` · version \`${entry.version}\` · ${entry.status}${entry.trial ? " · trial module" : ""}`,
        `- next nodes: ${next}`,
        `- layer tokens: logic ${entry.layer_tokens.logic}, directive ${entry.layer_tokens.directive}, skill ${entry.layer_tokens.skill}, action ${entry.layer_tokens.action}`,
        ...(sources ? ["- sources:", sources] : []),
        "",
        entry.summary,
        "",
        ...(vertical.fully_open && node ? _layers(node.layers) : []),
      ].join("\n");
    });
    return `## ${index.title} (\`${vertical.slug}\`)\n\n${index.summary}\n\nAccess: ${_access(vertical)}. Root node: \`${index.root}\`.\n\n${entries.join("\n")}`;
  });
  return `${INTRO}\n${parts.join("\n")}`;
}

// --- Internal helpers ---

/** The content layers as markdown: `####` per layer, the layer text as authored, then the rules as gate expressions. */
function _layers(layers: NodeResponse["node"]["layers"]): string[] {
  const out: string[] = [];
  for (const name of LAYER_NAMES) {
    const layer = layers[name];
    if (!layer) continue;
    out.push(`#### ${name[0]!.toUpperCase()}${name.slice(1)}`, "", layer.text.trim(), "");
    if (name === "logic" && "rules" in layer) out.push(..._rules(layer as LogicLayer));
  }
  return out;
}

function _rules(logic: LogicLayer): string[] {
  if (logic.rules.length === 0) return [];
  const facts = logic.facts.map((f) => `- fact \`${f.id}\`: ${f.question}`);
  const rules = logic.rules.map((r) => `- rule \`${r.id}\`: IF ${_gate(r.when)} THEN \`${r.then}\` (${r.citation})`);
  return ["Facts:", "", ...facts, "", "Rules (binary gates, confidence_required 1.0):", "", ...rules, ""];
}

function _gate(gate: CompiledGate): string {
  switch (gate.op) {
    case "fact":
      return gate.name;
    case "outcome":
      return `outcome(${gate.name})`;
    case "not":
      return `NOT ${_gate(gate.arg)}`;
    default:
      return `${gate.op.toUpperCase()}(${gate.args.map(_gate).join(", ")})`;
  }
}

function _ordered(index: IndexGraph) {
  return [...index.nodes].sort((a, b) => a.order - b.order);
}

function _oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function _access(v: ResolvedVertical): string {
  if (v.fully_open) return "fully open";
  if (v.index_free) return "index free, content layers need a key";
  return "key required";
}
