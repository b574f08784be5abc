/**
 * `npm run new -- <vertical> <node-id>`: writes a node file that builds as it is: frontmatter with
 * every required field, a rule skeleton (one fact, one outcome, one cited rule) and the four layer
 * headings, and links it from a node of the vertical (the root by default) so it is reachable.
 * The linking node's `updated` moves to today, and a vertical that keeps review records gets an
 * `unreviewed` record for the node. Placeholders say TODO; the author replaces them
 * (a release build refuses them).
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseDocument } from "yaml";
import { resolveBuildConfig } from "../config.ts";
import { loadContent } from "../stages/load.ts";
import { writeReviewDocs } from "../stages/review-records.ts";

export interface ScaffoldOptions {
  contentDir: string;
  vertical: string;
  id: string;
  /** Node whose next_nodes gets the new id; default the vertical's root. */
  from?: string | undefined;
  title?: string | undefined;
  now: Date;
}

export interface ScaffoldResult {
  file: string;
  linkedFrom: string;
  order: number;
}

export class ScaffoldError extends Error {}

export const NODE_ID_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export function scaffoldNode(options: ScaffoldOptions): ScaffoldResult {
  const dir = join(options.contentDir, options.vertical);
  if (!NODE_ID_RE.test(options.id)) throw new ScaffoldError(`node id "${options.id}" must be kebab-case (a-z, 0-9, single hyphens)`);
  if (!existsSync(join(dir, "_index.md")))
    throw new ScaffoldError(`no vertical "${options.vertical}" (${join(dir, "_index.md")} is missing)`);
  const file = join(dir, `${options.id}.md`);
  if (existsSync(file)) throw new ScaffoldError(`${file} already exists`);

  // 1. Where it goes: after the last node by order, linked from `from` (the root by default).
  const nodes = readdirSync(dir).filter((f) => f.endsWith(".md") && !f.startsWith("_") && !/^[A-Z]/.test(f));
  const orders = nodes.map((f) => Number(_frontmatter(readFileSync(join(dir, f), "utf8")).data.order) || 0);
  const order = Math.max(0, ...orders) + 1;
  const from = options.from ?? String(_frontmatter(readFileSync(join(dir, "_index.md"), "utf8")).data.root ?? "");
  const fromFile = join(dir, `${from}.md`);
  if (!from || !existsSync(fromFile)) throw new ScaffoldError(`cannot link the new node: no node "${from}" in ${options.vertical}`);

  // 2. The new file, then the link (so a failed write never leaves a dangling next_nodes entry).
  writeFileSync(file, _template(options, order), { flag: "wx" });
  // The parent changed (a new next node), so its `updated` moves too: the change feed and the
  // updated_not_bumped lint both read it.
  const parent = readFileSync(fromFile, "utf8");
  writeFileSync(fromFile, _keepReviewed(parent, _setUpdated(_addNextNode(parent, options.id), options.now.toISOString().slice(0, 10))));
  // 3. A vertical that keeps review records gets one for the new node, and its REVIEW.md summary.
  const records = join(dir, "_review.yaml");
  if (existsSync(records)) {
    appendFileSync(
      records,
      `${readFileSync(records, "utf8").endsWith("\n") ? "" : "\n"}${options.id}: { status: unreviewed, pass: not reviewed yet }\n`,
    );
    writeReviewDocs(loadContent(resolveBuildConfig({ contentDir: options.contentDir })));
  }
  return { file, linkedFrom: from, order };
}

// --- Internal helpers ---

const FRONTMATTER_RE = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

function _frontmatter(text: string): { raw: string; data: Record<string, unknown> } {
  const match = FRONTMATTER_RE.exec(text);
  const raw = match?.[1] ?? "";
  return { raw, data: (parse(raw) ?? {}) as Record<string, unknown> };
}

/** Appends to `next_nodes`, touching only that field (a flow list is edited in place; anything else through the YAML document). */
function _addNextNode(text: string, id: string): string {
  const { raw } = _frontmatter(text);
  const flow = /^next_nodes:[ \t]*\[([^\]\n]*)\][ \t]*$/m;
  let updated: string;
  if (flow.test(raw)) {
    updated = raw.replace(
      flow,
      (_line, items: string) =>
        `next_nodes: [${[
          ...items
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
          id,
        ].join(", ")}]`,
    );
  } else {
    const doc = parseDocument(raw);
    const list = (doc.get("next_nodes") as { items?: unknown[] } | undefined)?.items ? (doc.toJS().next_nodes as string[]) : [];
    doc.set("next_nodes", [...list, id]);
    updated = doc.toString({ lineWidth: 0 }).replace(/\n$/, "");
  }
  return text.replace(FRONTMATTER_RE, (whole) => whole.replace(raw, updated));
}

/** Sets `updated` to `day`, editing only that line (a later date-time already there is kept). */
function _setUpdated(text: string, day: string): string {
  const { raw } = _frontmatter(text);
  const line = /^updated:[ \t]*(.*)$/m;
  const current =
    line
      .exec(raw)?.[1]
      ?.trim()
      .replace(/^["']|["']$/g, "") ?? "";
  if (current >= day) return text;
  const updated = line.test(raw) ? raw.replace(line, `updated: ${day}`) : `${raw}\nupdated: ${day}`;
  return text.replace(FRONTMATTER_RE, (whole) => whole.replace(raw, updated));
}

/**
 * A link to a new node is an editorial change of the parent: when the parent's review covered its
 * content before (nothing changed since `reviewed`, or only changes marked editorial), it stays
 * covered, so `editorial` names the new `updated`. A parent already behind its review keeps its
 * state: the link does not vouch for changes nobody reviewed (build/stages/review-dates.ts).
 */
function _keepReviewed(before: string, after: string): string {
  const field = (text: string, name: string) =>
    (new RegExp(`^${name}:[ \\t]*(.*)$`, "m").exec(_frontmatter(text).raw)?.[1] ?? "").trim().replace(/^["']|["']$/g, "");
  const reviewed = field(before, "reviewed").slice(0, 10);
  const updatedBefore = field(before, "updated");
  const updatedAfter = field(after, "updated");
  if (!reviewed || updatedAfter.slice(0, 10) <= reviewed) return after;
  const covered = updatedBefore.slice(0, 10) <= reviewed || field(before, "editorial") === updatedBefore;
  if (!covered) return after;
  const { raw } = _frontmatter(after);
  const line = /^editorial:[ \t]*.*$/m;
  const marked = line.test(raw)
    ? raw.replace(line, `editorial: ${updatedAfter}`)
    : raw.replace(/^(reviewed:.*)$/m, `$1\neditorial: ${updatedAfter}`);
  return after.replace(FRONTMATTER_RE, (whole) => whole.replace(raw, marked));
}

function _template(options: ScaffoldOptions, order: number): string {
  const day = options.now.toISOString().slice(0, 10);
  // Six months is the default review cycle; shorten it for nodes that track pending law.
  const reviewBy = new Date(Date.UTC(options.now.getUTCFullYear(), options.now.getUTCMonth() + 6, Math.min(options.now.getUTCDate(), 28)))
    .toISOString()
    .slice(0, 10);
  const title = options.title ?? `TODO title of ${options.id}`;
  return `---
id: ${options.id}
title: ${JSON.stringify(title)}
summary: >-
  TODO one paragraph, the free index layer: what this node decides and when an agent should read it.
questions:
  - "TODO a question this node answers, worded as a user would ask it?"
  - "TODO another one, in other words than the title and summary use?"
order: ${order}
next_nodes: []
created: ${day}
updated: ${day}
reviewed: ${day}
review_by: ${reviewBy}
status: active
sources:
  - id: primary
    title: TODO name the primary source precisely (act, article, date)
    url: https://example.org/TODO-source
facts:
  example_fact: TODO the yes/no question an agent answers?
outcomes:
  example_outcome: TODO what holds when the rule is true.
rules:
  - id: example-rule
    when:
      all:
        - example_fact
    then: example_outcome
    citation: TODO article and paragraph
    source: primary
---

## Logic
TODO explain the rules above: what each gate checks and why, thresholds, edge cases.

## Directive
TODO what an agent must and must not do, each point with its source.

## Skill
TODO how to do the task, step by step.

## Action
TODO the concrete next actions: a checklist or an output format.
`;
}
