/**
 * A vertical's index graph as an SVG picture, laid out once at build time with dagre: one
 * `<rect class="node">` per node (each wrapped in a link to its page), one path per `next_nodes`
 * edge, trial modules drawn with a dashed outline and a "trial" tag, the root with a thick one.
 */
import dagre from "@dagrejs/dagre";
import type { IndexGraph } from "../../runtime/schema/artifacts.ts";
import { escapeHtml } from "./html-text.ts";

const NODE_WIDTH = 200;
const LINE_HEIGHT = 15;
const CHARS_PER_LINE = 28;
const MAX_LINES = 3;
const PADDING = 10;

/** @example const svg = renderGraphSvg(index, (id) => `/browse/travel/${id}`) */
export function renderGraphSvg(index: Pick<IndexGraph, "root" | "nodes" | "title">, hrefOf: (id: string) => string): string {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: "TB", nodesep: 24, ranksep: 48, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  const known = new Set(index.nodes.map((n) => n.id));
  const lines = new Map<string, string[]>();
  for (const node of index.nodes) {
    const wrapped = _wrap(node.title);
    lines.set(node.id, wrapped);
    graph.setNode(node.id, { width: NODE_WIDTH, height: (wrapped.length + (node.trial ? 1 : 0)) * LINE_HEIGHT + 2 * PADDING });
  }
  for (const node of index.nodes) for (const next of node.next_nodes) if (known.has(next) && next !== node.id) graph.setEdge(node.id, next);
  dagre.layout(graph);

  // Bounds over nodes and edge routes: dagre may route an edge of a cycle outside its own width.
  let [minX, minY, maxX, maxY] = [0, 0, graph.graph().width ?? 0, graph.graph().height ?? 0];
  for (const e of graph.edges()) {
    for (const p of graph.edge(e).points ?? []) [minX, minY, maxX, maxY] = [Math.min(minX, p.x - 8), Math.min(minY, p.y - 8), Math.max(maxX, p.x + 8), Math.max(maxY, p.y + 8)];
  }
  const [width, height] = [maxX - minX, maxY - minY];
  const edges = graph.edges().map((e) => {
    const points = graph.edge(e).points ?? [];
    const d = points.map((p, i) => `${i === 0 ? "M" : "L"}${_n(p.x)},${_n(p.y)}`).join(" ");
    return `<path class="edge" data-from="${escapeHtml(e.v)}" data-to="${escapeHtml(e.w)}" d="${d}" marker-end="url(#arrow)"/>`;
  });
  const nodes = index.nodes.map((node) => {
    const box = graph.node(node.id);
    const x = box.x - box.width / 2;
    const y = box.y - box.height / 2;
    const classes = ["node", node.trial ? "trial" : "", node.id === index.root ? "root" : "", node.status === "deprecated" ? "deprecated" : ""].filter(Boolean).join(" ");
    const text = lines.get(node.id)!.map((line, i) => `<tspan x="${_n(box.x)}" y="${_n(y + PADDING + (i + 0.8) * LINE_HEIGHT)}">${escapeHtml(line)}</tspan>`);
    if (node.trial) text.push(`<tspan class="tag" x="${_n(box.x)}" y="${_n(y + PADDING + (lines.get(node.id)!.length + 0.8) * LINE_HEIGHT)}">trial module</tspan>`);
    return (
      `<a href="${escapeHtml(hrefOf(node.id))}" data-node="${escapeHtml(node.id)}"><title>${escapeHtml(node.title)}</title>` +
      `<rect class="${classes}" data-node="${escapeHtml(node.id)}" x="${_n(x)}" y="${_n(y)}" width="${_n(box.width)}" height="${_n(box.height)}" rx="6"/>` +
      `<text text-anchor="middle">${text.join("")}</text></a>`
    );
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="graph" role="img" aria-label="${escapeHtml(`Graph of ${index.title}`)}" viewBox="${_n(minX)} ${_n(minY)} ${_n(width)} ${_n(height)}" width="${_n(width)}" height="${_n(height)}">`,
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><polygon points="0,0 10,5 0,10" class="arrowhead"/></marker></defs>`,
    `<g class="edges">${edges.join("")}</g>`,
    `<g class="nodes">${nodes.join("")}</g>`,
    `</svg>`,
  ].join("\n");
}

// --- Internal helpers ---

function _wrap(title: string): string[] {
  const words = title.split(/\s+/);
  const out: string[] = [];
  let line = "";
  for (const word of words) {
    if (line && (line + " " + word).length > CHARS_PER_LINE) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  if (out.length > MAX_LINES) return [...out.slice(0, MAX_LINES - 1), `${out.slice(MAX_LINES - 1).join(" ").slice(0, CHARS_PER_LINE - 1)}…`];
  return out;
}

/** Coordinates rounded to one decimal: smaller SVG, byte-identical output across runs. */
function _n(value: number): string {
  return String(Math.round(value * 10) / 10);
}
