/**
 * The `.md` twin of a node page (`/browse/<vertical>/<node>.md`), as docs sites offer: the same
 * node artifact as the HTML page (full or locked), as markdown for people who paste it into a
 * tool and for agents that read markdown. Layer text is the authored markdown, unchanged.
 */
import type { LogicLayer, NodeResponse } from "../../runtime/shared/schema/artifacts.ts";
import { LAYER_NAMES, type ResolvedVertical } from "../../runtime/shared/schema/catalog.ts";
import type { CompiledGate } from "../../runtime/shared/schema/rules.ts";

export function renderNodeMarkdown(vertical: ResolvedVertical, response: NodeResponse): string {
  const node = response.node;
  const out = [
    `# ${node.title}`,
    "",
    `> ${node.summary.replace(/\s+/g, " ").trim()}`,
    "",
    `- vertical: \`${vertical.slug}\` (${vertical.title})`,
    `- node: \`${node.id}\` · version \`${node.version}\` · ${node.status} · updated ${node.updated.slice(0, 10)}${node.trial ? " · trial module" : ""}`,
    `- cite as: \`${vertical.slug}/${node.id}@${node.version}\``,
    "",
  ];
  for (const name of LAYER_NAMES) {
    const layer = node.layers[name];
    const title = `${name[0]!.toUpperCase()}${name.slice(1)}`;
    if (!layer) {
      out.push(`## ${title} (locked)`, "", `About ${node.layer_tokens[name]} tokens. A key or a payment token unlocks it.`, "");
      continue;
    }
    out.push(`## ${title}`, "", layer.text.trim(), "");
    if (name === "logic" && "rules" in layer) out.push(..._rules(layer as LogicLayer));
  }
  if (response.next_nodes.length)
    out.push("## Next nodes", "", ...response.next_nodes.map((n) => `- [${n.title}](/browse/${vertical.slug}/${n.id}.md)`), "");
  if (node.sources.length) out.push("## Sources", "", ...node.sources.map((s) => `- ${s.url ? `[${s.title}](${s.url})` : s.title}`), "");
  return `${out.join("\n").trimEnd()}\n`;
}

// --- Internal helpers ---

function _rules(logic: LogicLayer): string[] {
  if (logic.rules.length === 0) return [];
  const questions = new Map(logic.facts.map((f) => [f.id, f.question]));
  const rules = logic.rules.flatMap((r) => [
    `### Rule \`${r.id}\` → \`${r.then}\``,
    "",
    ..._gate(r.when, questions, 0),
    "",
    `Citation: ${r.citation}${r.source?.url ? ` ([source](${r.source.url}))` : ""}`,
    "",
  ]);
  return [
    "### Rules",
    "",
    "Binary logic gates over facts you supply; confidence_required 1.0. Evaluate with `POST /api/evaluate`.",
    "",
    ...rules,
  ];
}

function _gate(gate: CompiledGate, questions: Map<string, string>, depth: number): string[] {
  const pad = "  ".repeat(depth);
  switch (gate.op) {
    case "fact":
      return [`${pad}- \`${gate.name}\`: ${questions.get(gate.name) ?? ""}`.trimEnd()];
    case "outcome":
      return [`${pad}- outcome \`${gate.name}\` holds`];
    case "not":
      return [`${pad}- NOT`, ..._gate(gate.arg, questions, depth + 1)];
    default:
      return [`${pad}- ${gate.op === "all" ? "ALL of" : "ANY of"}`, ...gate.args.flatMap((a) => _gate(a, questions, depth + 1))];
  }
}
