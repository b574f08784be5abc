/**
 * Review records the build reads. Each vertical's `_review.yaml` holds every node's verdict (status,
 * pass, questions), validated here; the summary block of its `REVIEW.md` is rendered from it and
 * must match, and a heading of REVIEW.md that names a node with a verdict must name the recorded
 * one, so a node can no longer be "open" in one place and "corrected" in another. An open question
 * older than its node's review interval (review_by minus reviewed) is a warning.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse as parseYaml } from "yaml";
import { suggestClosest } from "../../runtime/shared/did-you-mean.ts";
import { createDiagnostics, type Diagnostics, type IssueCode } from "../diagnostics.ts";
import { createLocator, type FieldPath } from "../locate.ts";
import { REVIEW_STATUSES, type ReviewFile, ReviewFileSchema, type ReviewRecord } from "../schema/review-records.ts";
import { compileSchema } from "../schema/validator.ts";
import { readFigures, substituteFigures } from "./figures.ts";
import type { LoadedContent, SourceFile } from "./load.ts";
import { parseSource } from "./parse.ts";
import { type ValidatedNode, validateNodes } from "./validate.ts";

export const BLOCK_START = "<!-- review-records: generated from _review.yaml by `npm run review:md`; edit the YAML, not this block -->";
export const BLOCK_END = "<!-- /review-records -->";
const checkFile = compileSchema(ReviewFileSchema);
const DAY_MS = 86_400_000;

/** Checks every vertical's records against its nodes and its REVIEW.md; `today` is `YYYY-MM-DD`. */
export function checkReviewRecords(
  content: { reviews: readonly SourceFile[]; reviewDocs: readonly SourceFile[]; nodes: readonly SourceFile[] },
  nodes: readonly ValidatedNode[],
  today: string,
  diagnostics: Diagnostics,
): void {
  for (const file of content.reviews) {
    const locate = createLocator(file.raw, 1);
    const report = (code: IssueCode, path: FieldPath, message: string) =>
      diagnostics.add({ code, file: file.file, line: locate(path), pointer: path.join(".") || undefined, message });
    const records = readReviewFile(file, report);
    if (!records) continue;
    const own = nodes.filter((n) => n.vertical === file.vertical);
    const byId = new Map(own.map((n) => [n.id, n]));
    // A draft left out of a release build still has its file: its record is not an error.
    const files = new Set(content.nodes.filter((n) => n.vertical === file.vertical).map((n) => n.name));

    for (const [id, record] of Object.entries(records)) {
      const node = byId.get(id);
      if (!node) {
        const close = suggestClosest(id, [...files]);
        if (!files.has(id))
          report("review_record_invalid", [id], `"${id}" is not a node of ${file.vertical}${close ? `; did you mean "${close}"?` : ""}`);
        continue;
      }
      _checkRecord(id, record, node, today, report);
    }
    for (const node of own) {
      if (!records[node.id]) report("review_record_invalid", [], `no review record for ${node.id}: add its status, pass and questions`);
    }
    const doc = content.reviewDocs.find((d) => d.vertical === file.vertical);
    _checkDocument(doc, file, records, own, diagnostics);
  }
}

/**
 * Rewrites the summary block of every vertical's REVIEW.md from its `_review.yaml` (`npm run
 * review:md`); returns the files written. Invalid records are left for the build to report.
 */
export function writeReviewDocs(content: LoadedContent): string[] {
  const ignored = createDiagnostics();
  const sources = substituteFigures(content.nodes, readFigures(content.figures, ignored), ignored);
  const nodes = validateNodes(
    sources.map((f) => parseSource(f)),
    ignored,
  );
  const written: string[] = [];
  for (const file of content.reviews) {
    const records = readReviewFile(file, () => undefined);
    if (!records) continue;
    const path = join(dirname(file.path), "REVIEW.md");
    const before = existsSync(path) ? readFileSync(path, "utf8") : `# Review: ${file.vertical}\n`;
    const after = withReviewBlock(
      before,
      renderReviewBlock(
        records,
        nodes.filter((n) => n.vertical === file.vertical),
      ),
    );
    if (after !== before) {
      writeFileSync(path, after);
      written.push(path);
    }
  }
  return written;
}

/** The parsed records, or undefined after reporting why not. */
export function readReviewFile(
  file: SourceFile,
  report: (code: IssueCode, path: FieldPath, message: string) => void,
): ReviewFile | undefined {
  let data: unknown;
  try {
    data = parseYaml(file.raw) ?? {};
  } catch (error) {
    report("review_record_invalid", [], error instanceof Error ? error.message.split("\n")[0]! : String(error));
    return undefined;
  }
  const errors = checkFile(data);
  for (const e of errors) report("review_record_invalid", e.path, e.message);
  return errors.length === 0 ? (data as ReviewFile) : undefined;
}

/**
 * The summary block of a vertical's REVIEW.md: one row per node in reading order, then every open
 * and every closed question.
 */
export function renderReviewBlock(records: ReviewFile, nodes: readonly ValidatedNode[]): string {
  const ordered = [...nodes]
    .sort((a, b) => a.frontmatter.order - b.frontmatter.order || (a.id < b.id ? -1 : 1))
    .filter((n) => records[n.id]);
  const open = (r: ReviewRecord) => (r.questions ?? []).filter((q) => !q.closed);
  const lines = [BLOCK_START, "", "| node | verdict | reviewed | review by | pass | open questions |", "|---|---|---|---|---|---|"];
  for (const n of ordered) {
    const r = records[n.id]!;
    lines.push(
      `| ${n.id} | ${r.status} | ${n.frontmatter.reviewed ?? "—"} | ${n.frontmatter.review_by ?? "—"} | ${r.pass} | ${open(r).length} |`,
    );
  }
  const openLines = ordered.flatMap((n) => open(records[n.id]!).map((q) => `- \`${n.id}\` (opened ${q.opened}): ${q.text}`));
  const closedLines = ordered.flatMap((n) =>
    (records[n.id]!.questions ?? [])
      .filter((q) => q.closed)
      .map((q) => `- \`${n.id}\` (opened ${q.opened}, closed ${q.closed}): ${q.text} **Resolution:** ${q.resolution}`),
  );
  lines.push("", "**Open questions**", "", ...(openLines.length ? openLines : ["- none"]));
  if (closedLines.length) lines.push("", "**Closed questions**", "", ...closedLines);
  lines.push("", BLOCK_END);
  return lines.join("\n");
}

/** REVIEW.md with its summary block replaced by the rendering of the records (appended when absent). */
export function withReviewBlock(document: string, block: string): string {
  const start = document.indexOf(BLOCK_START);
  const end = document.indexOf(BLOCK_END);
  if (start < 0 || end < start) return `${document.trimEnd()}\n\n${block}\n`;
  return document.slice(0, start) + block + document.slice(end + BLOCK_END.length);
}

// --- Internal helpers ---

function _checkRecord(
  id: string,
  record: ReviewRecord,
  node: ValidatedNode,
  today: string,
  report: (code: IssueCode, path: FieldPath, message: string) => void,
): void {
  const questions = record.questions ?? [];
  questions.forEach((q, i) => {
    const path = [id, "questions", i];
    if ((q.closed === undefined) !== (q.resolution === undefined)) {
      report(
        "review_record_invalid",
        path,
        "a closed question needs both `closed` (its date) and `resolution` (how it was settled, on which source)",
      );
    }
    if (q.closed && q.closed < q.opened)
      report("review_record_invalid", [...path, "closed"], `closed ${q.closed} is before opened ${q.opened}`);
  });
  if (record.status === "open" && !questions.some((q) => !q.closed)) {
    report("review_record_invalid", [id, "status"], `${id} is "open" but has no open question naming the defect`);
  }
  const { reviewed, review_by: reviewBy } = node.dates;
  if (!reviewed || !reviewBy) return;
  const interval = Math.round((Date.parse(reviewBy) - Date.parse(reviewed)) / DAY_MS);
  questions.forEach((q, i) => {
    if (q.closed) return;
    const age = Math.round((Date.parse(today) - Date.parse(q.opened)) / DAY_MS);
    if (age > interval) {
      report(
        "review_question_stale",
        [id, "questions", i],
        `open since ${q.opened} (${age} days), longer than ${id}'s review interval of ${interval} days: settle it against the source or escalate it`,
      );
    }
  });
}

function _checkDocument(
  doc: SourceFile | undefined,
  file: SourceFile,
  records: ReviewFile,
  nodes: readonly ValidatedNode[],
  diagnostics: Diagnostics,
): void {
  const where = `content/${file.vertical}/REVIEW.md`;
  const stale = (line: number | undefined, message: string) =>
    diagnostics.add({
      code: "review_md_stale",
      file: doc?.file ?? file.file.replace(/_review\.yaml$/, "REVIEW.md"),
      ...(line ? { line } : {}),
      message,
    });
  if (!doc) {
    stale(undefined, `${where} is missing: run \`npm run review:md\` to write its summary from ${file.file}`);
    return;
  }
  const block = renderReviewBlock(records, nodes);
  const start = doc.raw.indexOf(BLOCK_START);
  const end = doc.raw.indexOf(BLOCK_END);
  const lineAt = (offset: number) => 1 + (doc.raw.slice(0, offset).match(/\n/g)?.length ?? 0);
  if (start < 0 || end < start) {
    stale(undefined, `no generated summary block: run \`npm run review:md\``);
  } else if (doc.raw.slice(start, end + BLOCK_END.length) !== block) {
    stale(lineAt(start), `the summary block differs from ${file.file}: run \`npm run review:md\``);
  }
  // A heading such as "## re-fha-exemptions — open" or "### aic-triage: confirmed" states a verdict.
  const ids = new Set(nodes.map((n) => n.id));
  const heading = new RegExp(`^#{2,4}\\s+([a-z0-9-]+)\\s*(?:—|-|:)\\s*\\**(${REVIEW_STATUSES.join("|")})\\b`, "i");
  doc.raw.split("\n").forEach((line, i) => {
    const m = heading.exec(line);
    if (!m || !ids.has(m[1]!) || !records[m[1]!]) return;
    const recorded = records[m[1]!]!.status;
    if (m[2]!.toLowerCase() !== recorded)
      stale(
        i + 1,
        `heading says ${m[1]} is "${m[2]}" but ${file.file} records "${recorded}": drop the verdict from the heading or correct the record`,
      );
  });
}
