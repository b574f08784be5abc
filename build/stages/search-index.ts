/**
 * Stage 7c, search indexes: one `search/<vertical>.json` per vertical, so the runtime ranks a
 * query by reading a few posting lists instead of scanning every node. Postings are kept per
 * layer (index = title + summary, then the four content layers), which lets the runtime score and
 * quote only the layers a caller has unlocked. Tokenized with the runtime's own tokenizer.
 */
import { SEARCH_LAYERS, SearchIndexSchema, tokenizeForSearch, type SearchDoc, type SearchIndex } from "../../runtime/schema/search.ts";
import { compileSchema } from "../schema/validator.ts";
import type { GraphNode, VerticalGraph } from "./link.ts";
import { emitArtifact, type EmitContext } from "./emit.ts";

const checkSearchIndex = compileSchema(SearchIndexSchema);

/** Title words count this many times in the index layer: a title match outranks a passing mention. */
const TITLE_WEIGHT = 3;
/** Longest passage kept for a snippet, in characters. */
const MAX_PASSAGE = 280;

/** Writes `search/<slug>.json` for every vertical graph. */
export function emitSearchIndexes(graphs: readonly VerticalGraph[], ctx: Pick<EmitContext, "diagnostics" | "sink">): void {
  for (const graph of graphs) emitArtifact(`search/${graph.slug}.json`, toSearchIndex(graph), checkSearchIndex, ctx);
}

/** The search index of one vertical: documents, per-layer lengths and per-layer postings. */
export function toSearchIndex(graph: VerticalGraph): SearchIndex {
  const docs: SearchDoc[] = [];
  // term → flat [doc, layer, tf] triples, appended in doc then layer order (so already sorted).
  const postings = new Map<string, number[]>();
  const df = new Map<string, number>();
  const totals = SEARCH_LAYERS.map(() => 0);

  graph.nodes.forEach((node, docIndex) => {
    const texts = _layerTexts(node);
    const lengths: number[] = [];
    const seen = new Set<string>();
    texts.forEach((text, layer) => {
      const tokens = layer === 0 ? [...Array.from({ length: TITLE_WEIGHT }, () => tokenizeForSearch(node.frontmatter.title)).flat(), ...tokenizeForSearch(text)] : tokenizeForSearch(text);
      lengths.push(tokens.length);
      totals[layer]! += tokens.length;
      const tf = new Map<string, number>();
      for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [term, count] of tf) {
        let list = postings.get(term);
        if (!list) postings.set(term, (list = []));
        list.push(docIndex, layer, count);
        if (!seen.has(term)) (seen.add(term), df.set(term, (df.get(term) ?? 0) + 1));
      }
    });
    docs.push({
      id: node.id,
      title: node.frontmatter.title,
      summary: node.frontmatter.summary,
      trial: node.trial,
      status: node.frontmatter.status,
      lengths,
      passages: texts.map(_passages),
    });
  });

  const n = docs.length;
  const terms: SearchIndex["terms"] = {};
  for (const [term, list] of postings) {
    const d = df.get(term)!;
    terms[term] = { idf: Math.round(Math.log(1 + (n - d + 0.5) / (d + 0.5)) * 1e6) / 1e6, postings: list };
  }
  return {
    vertical: graph.slug,
    layers: [...SEARCH_LAYERS],
    docs,
    avg_lengths: totals.map((t) => (n ? Math.round((t / n) * 1000) / 1000 : 0)),
    terms,
  };
}

// --- Internal helpers ---

/** Texts in SEARCH_LAYERS order; the index layer's text is the summary (the title is added with its weight). */
function _layerTexts(node: GraphNode): string[] {
  const l = node.layers;
  return [node.frontmatter.summary, l.logic.text, l.directive.text, l.skill.text, l.action.text];
}

/** Markdown reduced to plain sentences, each cut to MAX_PASSAGE characters. */
function _passages(text: string): string[] {
  const plain = text
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`>#|]+/g, "")
    .replace(/^\s*[-+]\s+/gm, "")
    .replace(/^\s*\d+\.\s+/gm, "");
  return plain
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z0-9(])/)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter((s) => s.length > 0)
    .map((s) => (s.length > MAX_PASSAGE ? `${s.slice(0, MAX_PASSAGE - 1).trimEnd()}…` : s));
}
