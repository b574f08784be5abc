/**
 * Content issues: every stage adds `ContentIssue`s to one collector and the build fails once at the
 * end, so an author sees every problem of a run together.
 */

/** Stable identifiers of every problem the build can report; tests have one fixture per code. */
export const ISSUE_CODES = [
  "yaml_invalid",
  "schema_invalid",
  "date_invalid",
  "id_mismatch",
  "id_duplicate",
  "order_duplicate",
  "link_dangling",
  "node_unreachable",
  "layer_missing",
  "layer_empty",
  "layer_order",
  "layer_unknown",
  "rule_unknown_name",
  "rule_name_ambiguous",
  "rule_then_undeclared",
  "rule_id_duplicate",
  "rule_cycle",
  "rule_source_unknown",
  "value_outcome_undeclared",
  "figure_invalid",
  "figure_unknown",
  "figure_conflict",
  "outcome_without_rule",
  "fact_unused",
  "intermediate_invalid",
  "date_fact_invalid",
  "exclusion_outcome_unknown",
  "exclusion_violated",
  "outcome_never_holds",
  "fact_never_matters",
  "source_id_duplicate",
  "deprecation_date_missing",
  "deprecation_fields_on_active",
  "dates_out_of_order",
  "index_missing",
  "index_invalid",
  "root_unknown",
  "vertical_unknown",
  "catalog_missing",
  "catalog_invalid",
  "catalog_slug_duplicate",
  "wrapper_missing",
  "wrapper_empty",
  "wrapper_unknown",
  "updated_not_bumped",
  "changelog_backdated",
  "placeholder_content",
  "value_untyped",
  "review_overdue",
  "statement_outdated",
  "review_after_announcement",
  "review_record_invalid",
  "review_md_stale",
  "review_question_stale",
  "review_behind_change",
  "artifact_invalid",
] as const;
export type IssueCode = (typeof ISSUE_CODES)[number];

/** Codes that never fail the build on their own. */
export const WARNING_CODES: ReadonlySet<IssueCode> = new Set<IssueCode>([
  "outcome_without_rule",
  "fact_unused",
  "outcome_never_holds",
  "fact_never_matters",
  "updated_not_bumped",
  "changelog_backdated",
  // A dev build warns; a release build reports it with `fatal: true` (build/stages/placeholders.ts).
  "placeholder_content",
  // Like placeholder_content: a warning in dev, reported fatal by a release build.
  "value_untyped",
  "review_overdue",
  // Like placeholder_content: a passed announcement is served as if it were still to come, so a
  // release build refuses it, while a dev build warns and keeps serving.
  "statement_outdated",
  "review_after_announcement",
  "review_question_stale",
  // Like placeholder_content: callers would read a review older than the content, so a release
  // build refuses it, while a dev build warns.
  "review_behind_change",
]);

export interface ContentIssue {
  code: IssueCode;
  /** Display path of the file, relative to the working directory, e.g. `content/travel/x.md`. */
  file: string;
  /** 1-based line in the file, when the problem can be located. */
  line?: number;
  /** Field path inside the frontmatter or data file, e.g. `next_nodes[2]`. */
  pointer?: string;
  message: string;
  fatal: boolean;
}

/** `fatal` follows from the code unless a stage decides it (a placeholder is fatal only in a release build). */
export type IssueInput = Omit<ContentIssue, "fatal"> & { fatal?: boolean };

/** Collects issues across stages; `fatal` follows from the code. */
export interface Diagnostics {
  add(issue: IssueInput): void;
  readonly issues: readonly ContentIssue[];
  hasFatal(): boolean;
}

/** @example const d = createDiagnostics(); d.add({ code: "id_mismatch", file, message }); */
export function createDiagnostics(): Diagnostics {
  const issues: ContentIssue[] = [];
  return {
    add(issue) {
      issues.push({ ...issue, fatal: issue.fatal ?? !WARNING_CODES.has(issue.code) });
    },
    get issues() {
      return issues;
    },
    hasFatal() {
      return issues.some((i) => i.fatal);
    },
  };
}

/** Issues sorted by file, then line, then code: the order the report and tests rely on. */
export function sortIssues(issues: readonly ContentIssue[]): ContentIssue[] {
  return [...issues].sort(
    (a, b) => _compare(a.file, b.file) || (a.line ?? 0) - (b.line ?? 0) || _compare(a.code, b.code) || _compare(a.message, b.message),
  );
}

/**
 * One line per issue, e.g. `content/travel/x.md:7 next_nodes[2]: unknown node "visa-chek"`.
 * @example formatIssue(issue) // 'content/travel/x.md:7 next_nodes[2]: unknown node "visa-chek"'
 */
export function formatIssue(issue: ContentIssue): string {
  const where = issue.line ? `${issue.file}:${issue.line}` : issue.file;
  const field = issue.pointer ? ` ${issue.pointer}:` : "";
  return `${where}${field} ${issue.message}`;
}

/** The grouped report the CLI prints: files in order, a blank line between files. */
export function formatReport(issues: readonly ContentIssue[]): string {
  const lines: string[] = [];
  let lastFile: string | undefined;
  for (const issue of sortIssues(issues)) {
    if (lastFile !== undefined && issue.file !== lastFile) lines.push("");
    lastFile = issue.file;
    lines.push(`${issue.fatal ? "error  " : "warning"} ${formatIssue(issue)}  [${issue.code}]`);
  }
  return lines.join("\n");
}

/** JSON pointer `/rules/0/when/all/2` → display path `rules[0].when.all[2]`. */
export function toDisplayPath(path: ReadonlyArray<string | number>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number" || /^\d+$/.test(part)) out += `[${part}]`;
    else out += out ? `.${part}` : part;
  }
  return out;
}

// --- Internal helpers ---

function _compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
