/**
 * Review dates: every node says when it was last checked against its sources (`reviewed`) and
 * when it must be checked again (`review_by`). Content ages silently, so the build warns on a node
 * past its `review_by`; a release build fails on prose announcing a future event whose date has
 * already passed ("planned for April 2026" read in November 2026), which a dev build reports as a
 * warning so that `npm start` keeps serving while the node is fixed; it warns when a node's
 * `review_by` falls after an event it announces, so the node is reviewed before the statement can
 * go stale; and a release build refuses a node whose content changed after its last review
 * (`updated` later than `reviewed`) unless the author marked that change editorial.
 */
import { type Diagnostics, toDisplayPath } from "../diagnostics.ts";
import type { ValidatedNode } from "./validate.ts";

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const QUARTERS: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, last: 4 };
const HALVES: Record<string, number> = { first: 1, second: 2 };

/**
 * The dates an announcement can name: "10 April 2026", "April 2026", "2026-04-10", "Q4 2026",
 * "the last quarter of 2026", "the second half of 2026", "H2 2026", "the end of 2026".
 */
const DATE =
  String.raw`(?:(?:(\d{1,2})\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{4})` +
  String.raw`|(\d{4})-(\d{2})-(\d{2})` +
  String.raw`|q([1-4])\s+(\d{4})` +
  String.raw`|(?:the\s+)?(first|second|third|fourth|last)\s+quarter\s+(?:of\s+)?(\d{4})` +
  String.raw`|(?:the\s+)?(first|second)\s+half\s+(?:of\s+)?(\d{4})|h([12])\s+(\d{4})` +
  String.raw`|(?:the\s+)?end\s+of\s+(\d{4}))`;
/**
 * A future event stated as planned: "planned for April 2026", "expected on 10 April 2026",
 * "scheduled for 2026-04-10", "due in Q2 2026", "expected last quarter of 2026", "set to start in
 * Q4 2026", or an announcement of a start: "announced a start in the last quarter of 2026". An
 * announcement made on a date ("announced 18 Jul 2025") is not one.
 */
const FUTURE_EVENT = new RegExp(
  String.raw`\b(?:(?:planned|scheduled|expected|foreseen|due|set|slated|targeted)(?:\s+to\s+[a-z]+)?(?:\s+(?:for|on|in|by|from))?` +
    String.raw`|announced\s+(?:(?:a|an|the|its)\s+)?(?:start|launch|opening|go-live|entry into operation|application)\s+(?:for|on|in|by|from))\s+${DATE}`,
  "gi",
);

/** A line that quotes an old announcement to correct it is not stating it. */
const CORRECTING = /do not (say|state|write)|never|no longer|moved|replaced|originally|outdated|instead of/i;

/**
 * The last day an announced date can mean, as `YYYY-MM-DD`: a month means its last day, a quarter
 * or half its last day, the end of a year 31 December, a full date itself.
 * @example lastDayMeant("planned for April 2026") // "2026-04-30"
 * @example lastDayMeant("expected last quarter of 2026") // "2026-12-31"
 */
export function lastDayMeant(statement: string): string | undefined {
  FUTURE_EVENT.lastIndex = 0;
  const m = FUTURE_EVENT.exec(statement);
  return m ? _lastDay(m) : undefined;
}

/**
 * Reports passed announcements (fatal in a release build), reviews due after an announced date and
 * overdue reviews; `today` is `YYYY-MM-DD`.
 */
export function checkReviewDates(
  nodes: readonly ValidatedNode[],
  config: { today: string; release: boolean },
  diagnostics: Diagnostics,
): void {
  const { today, release } = config;
  const consequence = release ? "a release build refuses it" : "a release build (--release) will refuse it";
  for (const node of nodes) {
    const fm = node.frontmatter;
    const file = node.source.file;
    // Parsed, checked as real dates and ordered by the validate stage.
    const reviewBy = node.dates.review_by?.slice(0, 10);
    if (reviewBy && reviewBy < today) {
      diagnostics.add({
        code: "review_overdue",
        file,
        line: node.parsed.locate(["review_by"]),
        pointer: toDisplayPath(["review_by"]),
        message: `review_by ${fm.review_by} has passed (today ${today}): check the node against its sources and set reviewed and review_by`,
      });
    }
    _checkReviewBehindChange(node, release, diagnostics);
    // The raw file, so the line reported is the line an author opens.
    const raw = node.source.raw;
    for (const m of raw.matchAll(FUTURE_EVENT)) {
      const meant = _lastDay(m);
      if (!meant) continue;
      const line = 1 + (raw.slice(0, m.index).match(/\n/g)?.length ?? 0);
      if (CORRECTING.test(raw.split("\n")[line - 1] ?? "")) continue;
      const statement = m[0].replace(/\s+/g, " ");
      if (meant < today) {
        diagnostics.add({
          code: "statement_outdated",
          file,
          line,
          message: `"${statement}" announces a date that has passed (today ${today}): state what happened, with its source (${consequence})`,
          fatal: release,
        });
      } else if (reviewBy && reviewBy > meant) {
        diagnostics.add({
          code: "review_after_announcement",
          file,
          line,
          message: `"${statement}" names ${meant}, but review_by is ${reviewBy}: set review_by on or before ${meant} so the node is checked when the event is due`,
        });
      }
    }
  }
}

// --- Internal helpers ---

/**
 * A node answers with `reviewed` and `updated`: a review older than the content is a review of
 * other content. `editorial: <the updated it covers>` says the changes since the review changed no
 * meaning; it covers that `updated` only, so a later change needs a review (or a new marker).
 */
function _checkReviewBehindChange(node: ValidatedNode, release: boolean, diagnostics: Diagnostics): void {
  const { updated, reviewed, editorial } = node.dates;
  if (!reviewed) return;
  if (Date.parse(updated) <= _endOfReviewDay(node.frontmatter.reviewed!, reviewed)) return;
  if (editorial !== undefined && Date.parse(editorial) === Date.parse(updated)) return;
  const fm = node.frontmatter;
  const stale = editorial !== undefined ? ` (editorial: ${fm.editorial} covers an earlier change)` : "";
  diagnostics.add({
    code: "review_behind_change",
    file: node.source.file,
    line: node.parsed.locate(["reviewed"]),
    pointer: toDisplayPath(["reviewed"]),
    message:
      `the content changed after its last review (updated ${fm.updated}, reviewed ${fm.reviewed})${stale}: review the change and set reviewed, ` +
      `or, when every change since the review is editorial, set editorial: ${fm.updated} (${release ? "a release build refuses it" : "a release build (--release) will refuse it"})`,
    fatal: release,
  });
}

/** A review given as a date covers that whole day (a node changed and reviewed on one day passes). */
function _endOfReviewDay(authored: string, iso: string): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(authored) ? Date.parse(iso) + 86_400_000 - 1 : Date.parse(iso);
}

function _lastDay(m: RegExpMatchArray): string | undefined {
  const endOfMonth = (y: string, month: number) => new Date(Date.UTC(Number(y), month, 0)).toISOString().slice(0, 10);
  if (m[3]) {
    const month = MONTHS.indexOf(m[2]!.toLowerCase()) + 1;
    return m[1] ? `${m[3]}-${String(month).padStart(2, "0")}-${m[1].padStart(2, "0")}` : endOfMonth(m[3], month);
  }
  if (m[4]) return `${m[4]}-${m[5]}-${m[6]}`;
  if (m[8]) return endOfMonth(m[8], Number(m[7]) * 3);
  if (m[10]) return endOfMonth(m[10], QUARTERS[m[9]!.toLowerCase()]! * 3);
  if (m[12]) return endOfMonth(m[12], HALVES[m[11]!.toLowerCase()]! * 6);
  if (m[14]) return endOfMonth(m[14], Number(m[13]) * 6);
  if (m[15]) return `${m[15]}-12-31`;
  return undefined;
}
