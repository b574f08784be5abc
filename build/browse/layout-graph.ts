/**
 * A vertical's index graph as an SVG picture, laid out once at build time by a small layered
 * layout of our own. Why not dagre: at a vertical's density (two edges per node, many of them back
 * to earlier nodes) dagre looped back-edges round the border and the page shrank the picture to
 * fit, leaving 5–8 px labels. Here the picture keeps its natural size (its figure scrolls) and
 * every edge stays in the empty bands between boxes, so no edge crosses a box:
 *
 * 1. Rank = breadth-first distance from the root; nodes in a rank ordered by the mean position of
 *    their parents (one barycentre sweep), ties by authored `order`.
 * 2. A rank wider than MAX_COLUMNS wraps onto rows of even length, centred on a column grid.
 * 3. An edge into the next row is a curve inside the band between the two rows. An edge that skips
 *    rows drops into the band below its source, runs down the gutter between its ends to the band
 *    above its target and enters from the top. Each band and gutter gives every edge its own lane
 *    and grows with their number.
 * 4. Links back to an earlier or the same row are not drawn: routed round the margins they crowded
 *    the picture with dashed lines (a vertical links back to its triage from most nodes). A box
 *    counts them instead ("↩ 2", its tooltip and `data-back` name them); the node page lists them.
 *
 * Output: one `<rect class="node">` per node (each wrapped in a link to its page), one
 * `<path class="edge">` per forward `next_nodes` edge, trial modules dashed with a "trial module"
 * tag, the root with a thick outline.
 */
import type { IndexGraph } from "../../runtime/shared/schema/artifacts.ts";
import { escapeHtml } from "./html-text.ts";

const NODE_WIDTH = 164;
const LINE_HEIGHT = 16;
const CHARS_PER_LINE = 22;
const MAX_LINES = 3;
const PADDING = 9;
const MAX_COLUMNS = 5;
const LANE = 5;
const MIN_BAND = 40;
const MIN_GUTTER = 28;
const MARGIN = 8;

type GraphNode = IndexGraph["nodes"][number];

/** @example const svg = renderGraphSvg(index, (id) => `/browse/travel/${id}`) */
export function renderGraphSvg(index: Pick<IndexGraph, "root" | "nodes" | "title">, hrefOf: (id: string) => string): string {
  const rows = _rows(index);
  const columns = Math.max(...rows.map((r) => r.length));
  const cell = new Map<string, { row: number; col: number }>();
  rows.forEach((row, r) => row.forEach((id, i) => cell.set(id, { row: r, col: i + Math.floor((columns - row.length) / 2) })));
  const byId = new Map(index.nodes.map((n) => [n.id, n]));
  const lines = new Map(index.nodes.map((n) => [n.id, _wrap(n.title)]));
  // Links to an earlier or the same row are counted on their box, not drawn (4. above).
  const all = index.nodes.flatMap((n) => n.next_nodes.filter((t) => cell.has(t) && t !== n.id).map((t) => ({ from: n.id, to: t })));
  const edges = all.filter((e) => cell.get(e.to)!.row > cell.get(e.from)!.row);
  const backOf = new Map<string, string[]>();
  for (const e of all) if (cell.get(e.to)!.row <= cell.get(e.from)!.row) backOf.set(e.from, [...(backOf.get(e.from) ?? []), e.to]);
  const tagged = (n: GraphNode) => n.trial || backOf.has(n.id);
  const boxHeight = Math.max(...index.nodes.map((n) => lines.get(n.id)!.length + (tagged(n) ? 1 : 0))) * LINE_HEIGHT + 2 * PADDING;

  // Which band (between rows r-1 and r: band r) and gutter (left of column g: gutter g) each edge uses.
  const bandLanes = Array.from({ length: rows.length + 1 }, () => [] as number[]);
  const gutterLanes = Array.from({ length: columns + 1 }, () => [] as number[]);
  const routes = edges.map((e, i) => {
    const [s, t] = [cell.get(e.from)!, cell.get(e.to)!];
    if (t.row === s.row + 1) return { ...e, direct: true as const };
    // An edge that skips rows takes the gutter between its ends.
    const gutter = t.col > s.col ? Math.min(s.col + 1, t.col) : t.col < s.col ? Math.max(s.col, t.col + 1) : s.col + 1;
    bandLanes[s.row + 1]!.push(i);
    bandLanes[t.row]!.push(i);
    gutterLanes[gutter]!.push(i);
    return { ...e, direct: false as const, gutter };
  });

  // Coordinates: bands and gutters sized by their lanes.
  const bandHeight = bandLanes.map((l, b) =>
    b === 0 || b === rows.length ? Math.max(MARGIN, (l.length + 1) * LANE) : Math.max(MIN_BAND, (l.length + 1) * LANE),
  );
  const gutterWidth = gutterLanes.map((l, g) =>
    g === 0 || g === columns ? Math.max(MARGIN, (l.length + 1) * LANE) : Math.max(MIN_GUTTER, (l.length + 1) * LANE),
  );
  const rowTop: number[] = [];
  for (let r = 0, y = 0; r < rows.length; r++, y += boxHeight) rowTop.push((y += bandHeight[r]!));
  const colLeft: number[] = [];
  for (let c = 0, x = 0; c < columns; c++, x += NODE_WIDTH) colLeft.push((x += gutterWidth[c]!));
  const width = colLeft[columns - 1]! + NODE_WIDTH + gutterWidth[columns]!;
  const height = rowTop[rows.length - 1]! + boxHeight + bandHeight[rows.length]!;
  const laneY = (band: number, edge: number) => {
    const top = band === 0 ? 0 : rowTop[band - 1]! + boxHeight;
    return top + (bandLanes[band]!.indexOf(edge) + 1) * (bandHeight[band]! / (bandLanes[band]!.length + 1));
  };
  const laneX = (gutter: number, edge: number) => {
    const left = gutter === 0 ? 0 : colLeft[gutter - 1]! + NODE_WIDTH;
    return left + (gutterLanes[gutter]!.indexOf(edge) + 1) * (gutterWidth[gutter]! / (gutterLanes[gutter]!.length + 1));
  };

  // Where edges leave a box (bottom) and enter one (top): spread along the side, ordered by the other end's x.
  const exits = _ports(edges, "from", (e) => cell.get(e.to)!.col);
  const entries = _ports(edges, "to", (e) => cell.get(e.from)!.col);
  const portX = (id: string, slot: number) => colLeft[cell.get(id)!.col]! + NODE_WIDTH * (0.2 + 0.6 * slot);

  const paths = routes.map((route, i) => {
    const [s, t] = [cell.get(route.from)!, cell.get(route.to)!];
    const [x1, y1] = [portX(route.from, exits.get(i)!), rowTop[s.row]! + boxHeight];
    const [x2, y2] = [portX(route.to, entries.get(i)!), rowTop[t.row]!];
    let d: string;
    if (route.direct) {
      const mid = (y1 + y2) / 2;
      d = `M${_n(x1)},${_n(y1)} C${_n(x1)},${_n(mid)} ${_n(x2)},${_n(mid)} ${_n(x2)},${_n(y2)}`;
    } else {
      const [below, gx, above] = [laneY(s.row + 1, i), laneX(route.gutter, i), laneY(t.row, i)];
      d = `M${_n(x1)},${_n(y1)} V${_n(below)} H${_n(gx)} V${_n(above)} H${_n(x2)} V${_n(y2)}`;
    }
    const cls = route.direct ? "edge" : "edge long";
    return `<path class="${cls}" data-from="${escapeHtml(route.from)}" data-to="${escapeHtml(route.to)}" d="${d}" marker-end="url(#arrow)"/>`;
  });

  const boxes = index.nodes.map((node) => {
    const { row, col } = cell.get(node.id)!;
    const [x, y, cx] = [colLeft[col]!, rowTop[row]!, colLeft[col]! + NODE_WIDTH / 2];
    const classes = [
      "node",
      node.trial ? "trial" : "",
      node.id === index.root ? "root" : "",
      node.status === "deprecated" ? "deprecated" : "",
    ]
      .filter(Boolean)
      .join(" ");
    const text = lines
      .get(node.id)!
      .map((line, i) => `<tspan x="${_n(cx)}" y="${_n(y + PADDING + (i + 0.8) * LINE_HEIGHT)}">${escapeHtml(line)}</tspan>`);
    const back = backOf.get(node.id) ?? [];
    const tag = [node.trial ? "trial module" : "", back.length ? `↩ ${back.length}` : ""].filter(Boolean).join(" · ");
    if (tag)
      text.push(
        `<tspan class="tag" x="${_n(cx)}" y="${_n(y + PADDING + (lines.get(node.id)!.length + 0.8) * LINE_HEIGHT)}">${tag}</tspan>`,
      );
    const title = back.length
      ? `${byId.get(node.id)!.title}\nAlso links back to: ${back.map((id) => byId.get(id)!.title).join("; ")}`
      : byId.get(node.id)!.title;
    return (
      `<a href="${escapeHtml(hrefOf(node.id))}" data-node="${escapeHtml(node.id)}"${back.length ? ` data-back="${escapeHtml(back.join(" "))}"` : ""}><title>${escapeHtml(title)}</title>` +
      `<rect class="${classes}" data-node="${escapeHtml(node.id)}" x="${_n(x)}" y="${_n(y)}" width="${NODE_WIDTH}" height="${_n(boxHeight)}" rx="6"/>` +
      `<text text-anchor="middle">${text.join("")}</text></a>`
    );
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="graph" role="img" aria-label="${escapeHtml(`Graph of ${index.title}`)}" viewBox="0 0 ${_n(width)} ${_n(height)}" width="${_n(width)}" height="${_n(height)}">`,
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><polygon points="0,0 10,5 0,10" class="arrowhead"/></marker></defs>`,
    `<g class="edges">${paths.join("")}</g>`,
    `<g class="nodes">${boxes.join("")}</g>`,
    `</svg>`,
  ].join("\n");
}

// --- Internal helpers ---

/** Ranks by breadth-first distance from the root, ordered by parents' mean position, wrapped at MAX_COLUMNS. */
function _rows(index: Pick<IndexGraph, "root" | "nodes">): string[][] {
  const byId = new Map(index.nodes.map((n) => [n.id, n]));
  const rank = new Map<string, number>();
  const queue = byId.has(index.root) ? [index.root] : [];
  if (queue.length) rank.set(index.root, 0);
  while (queue.length) {
    const id = queue.shift()!;
    for (const next of byId.get(id)!.next_nodes) if (byId.has(next) && !rank.has(next)) rank.set(next, rank.get(id)! + 1), queue.push(next);
  }
  // Unreachable nodes (the build forbids them, drafts aside) get a row of their own at the end.
  const last = Math.max(-1, ...rank.values()) + 1;
  for (const n of [...index.nodes].sort((a, b) => a.order - b.order)) if (!rank.has(n.id)) rank.set(n.id, last);

  const ranks: GraphNode[][] = [];
  for (const n of [...index.nodes].sort((a, b) => a.order - b.order)) (ranks[rank.get(n.id)!] ??= []).push(n);
  const position = new Map<string, number>();
  const rows: string[][] = [];
  for (const nodes of ranks.filter(Boolean)) {
    const parents = (n: GraphNode) =>
      index.nodes.filter((p) => p.next_nodes.includes(n.id) && position.has(p.id)).map((p) => position.get(p.id)!);
    const keyed = nodes.map((n) => {
      const ps = parents(n);
      return { n, key: ps.length ? ps.reduce((a, b) => a + b, 0) / ps.length : Number.MAX_SAFE_INTEGER };
    });
    keyed.sort((a, b) => a.key - b.key || a.n.order - b.n.order);
    keyed.forEach(({ n }, i) => position.set(n.id, i / Math.max(1, keyed.length - 1)));
    const perRow = Math.ceil(keyed.length / Math.ceil(keyed.length / MAX_COLUMNS));
    for (let i = 0; i < keyed.length; i += perRow) rows.push(keyed.slice(i, i + perRow).map((k) => k.n.id));
  }
  return rows;
}

/** Each edge's slot (0–1) along the side of the box it leaves or enters, ordered by the far end's column. */
function _ports<E extends { from: string; to: string }>(edges: E[], side: "from" | "to", farColumn: (e: E) => number): Map<number, number> {
  const groups = new Map<string, number[]>();
  edges.forEach((e, i) => groups.set(e[side], [...(groups.get(e[side]) ?? []), i]));
  const slots = new Map<number, number>();
  for (const members of groups.values()) {
    members.sort((a, b) => farColumn(edges[a]!) - farColumn(edges[b]!) || a - b);
    members.forEach((edge, k) => slots.set(edge, members.length === 1 ? 0.5 : k / (members.length - 1)));
  }
  return slots;
}

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
  if (out.length > MAX_LINES)
    return [
      ...out.slice(0, MAX_LINES - 1),
      `${out
        .slice(MAX_LINES - 1)
        .join(" ")
        .slice(0, CHARS_PER_LINE - 1)}…`,
    ];
  return out;
}

/** Coordinates rounded to one decimal: smaller SVG, byte-identical output across runs. */
function _n(value: number): string {
  return String(Math.round(value * 10) / 10);
}
