/**
 * Stage 7c, search indexes: one `search/<vertical>.json` per vertical, so the runtime ranks a
 * query by reading a few posting lists instead of scanning every node. Postings are kept per
 * field (title, the questions the node answers, summary, then the four content layers), which
 * lets the runtime weigh fields and quote only the layers a caller has unlocked. Tokenized with the
 * runtime's own tokenizer; snippet passages are cut by build/search/passages.ts.
 */
import { SEARCH_FIELDS, type SearchDoc, type SearchIndex, SearchIndexSchema } from "../../runtime/shared/schema/search.ts";
import { searchTokens } from "../../runtime/shared/tokenize.ts";
import { compileSchema } from "../schema/validator.ts";
import { toPassages } from "../search/passages.ts";
import { type EmitContext, emitArtifact } from "./emit.ts";
import type { GraphNode, VerticalGraph } from "./link.ts";

const checkSearchIndex = compileSchema(SearchIndexSchema);

/** One node's term frequencies per field and word count per field. */
interface TokenizedNode {
  node: GraphNode;
  fields: Array<Map<string, number>>;
  lengths: number[];
}

/** Writes `search/<slug>.json` for every vertical graph, with statistics over all of them. */
export function emitSearchIndexes(graphs: readonly VerticalGraph[], ctx: Pick<EmitContext, "diagnostics" | "sink">): void {
  for (const [slug, index] of toSearchIndexes(graphs)) emitArtifact(`search/${slug}.json`, index, checkSearchIndex, ctx);
}

/**
 * The search index of each vertical: documents, per-field lengths and per-field postings. Document
 * frequencies and mean lengths are counted over every vertical, so one term weighs the same wherever
 * it is scored and results from different verticals can be merged by score.
 */
export function toSearchIndexes(graphs: readonly VerticalGraph[]): Map<string, SearchIndex> {
  const tokenized = new Map(graphs.map((g) => [g.slug, g.nodes.map(_tokenizeNode)]));
  const df = new Map<string, number>();
  const totals = SEARCH_FIELDS.map(() => 0);
  let n = 0;
  for (const nodes of tokenized.values()) {
    for (const t of nodes) {
      n += 1;
      t.lengths.forEach((len, f) => (totals[f]! += len));
      const seen = new Set<string>();
      for (const field of t.fields) for (const term of field.keys()) seen.add(term);
      for (const term of seen) df.set(term, (df.get(term) ?? 0) + 1);
    }
  }
  const idf = (term: string): number => {
    const d = df.get(term)!;
    return Math.round(Math.log(1 + (n - d + 0.5) / (d + 0.5)) * 1e6) / 1e6;
  };
  const avgLengths = totals.map((t) => (n ? Math.round((t / n) * 1000) / 1000 : 0));

  const out = new Map<string, SearchIndex>();
  for (const graph of graphs) {
    // term → flat [doc, field, tf] triples, appended in doc then field order (so already sorted).
    const postings = new Map<string, number[]>();
    const docs: SearchDoc[] = tokenized.get(graph.slug)!.map((t, doc) => {
      t.fields.forEach((tf, field) => {
        for (const [term, count] of tf) {
          let list = postings.get(term);
          if (!list) postings.set(term, (list = []));
          list.push(doc, field, count);
        }
      });
      const { node } = t;
      return {
        id: node.id,
        title: node.frontmatter.title,
        summary: node.frontmatter.summary,
        trial: node.trial,
        status: node.frontmatter.status,
        lengths: t.lengths,
        passages: _layerTexts(node).map(toPassages),
      };
    });
    out.set(graph.slug, {
      vertical: graph.slug,
      fields: [...SEARCH_FIELDS],
      docs,
      avg_lengths: avgLengths,
      doc_count: n,
      // fromEntries defines own keys, so a word such as `__proto__` stays a term instead of a prototype.
      terms: Object.fromEntries([...postings].map(([term, list]) => [term, { idf: idf(term), postings: list }])),
    });
  }
  return out;
}

// --- Internal helpers ---

function _tokenizeNode(node: GraphNode): TokenizedNode {
  const l = node.layers;
  const texts = [
    node.frontmatter.title,
    (node.frontmatter.questions ?? []).join("\n"),
    node.frontmatter.summary,
    l.logic.text,
    l.directive.text,
    l.skill.text,
    l.action.text,
  ];
  const fields: Array<Map<string, number>> = [];
  const lengths: number[] = [];
  for (const [field, text] of texts.entries()) {
    const { words, pairs } = searchTokens(text);
    // The id is shown with the title wherever the title is, and its words are chosen by authors
    // (e.g. `eu-bus-ferry-rights` names the ferry the title leaves out).
    if (field === 0) {
      const id = searchTokens(node.id.replace(/-/g, " "));
      words.push(...id.words);
      pairs.push(...id.pairs);
    }
    const tf = new Map<string, number>();
    for (const term of [...words, ...pairs]) tf.set(term, (tf.get(term) ?? 0) + 1);
    fields.push(tf);
    lengths.push(words.length);
  }
  return { node, fields, lengths };
}

/** Snippet texts in SEARCH_LAYERS order; the index layer's snippet is the summary. */
function _layerTexts(node: GraphNode): string[] {
  const l = node.layers;
  return [node.frontmatter.summary, l.logic.text, l.directive.text, l.skill.text, l.action.text];
}
