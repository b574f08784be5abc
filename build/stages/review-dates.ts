/**
 * Review dates: every node says when it was last checked against its sources (`reviewed`) and
 * when it must be checked again (`review_by`). Content ages silently, so the build warns on a node
 * past its `review_by`, and on prose announcing a future event whose date has already passed
 * ("planned for April 2026" read in November 2026). Warnings only: the content is still served.
 */
import { toDisplayPath, type Diagnostics } from "../diagnostics.ts";
import type { ValidatedNode } from "./validate.ts";

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
/** "planned for April 2026", "expected on 10 April 2026", "scheduled for 2026-04-10", "due in Q2 2026". */
const FUTURE_EVENT =
  /\b(planned|scheduled|expected|foreseen|due|set)\s+(?:for|on|in|by|from)\s+(?:(?:(\d{1,2})\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{4})|(\d{4})-(\d{2})-(\d{2})|q([1-4])\s+(\d{4}))/gi;

/** A line that quotes an old announcement to correct it is not stating it. */
const CORRECTING = /do not (say|state|write)|never|no longer|moved|replaced|originally|outdated|instead of/i;

/**
 * The last day an announced date can mean, as `YYYY-MM-DD`: a month means its last day, a quarter
 * its last day, a full date itself.
 * @example lastDayMeant("planned for April 2026") // "2026-04-30"
 */
export function lastDayMeant(statement: string): string | undefined {
  FUTURE_EVENT.lastIndex = 0;
  const m = FUTURE_EVENT.exec(statement);
  if (!m) return undefined;
  const endOfMonth = (y: number, month: number) => new Date(Date.UTC(y, month, 0)).toISOString().slice(0, 10);
  if (m[4]) {
    const month = MONTHS.indexOf(m[3]!.toLowerCase()) + 1;
    return m[2] ? `${m[4]}-${String(month).padStart(2, "0")}-${m[2].padStart(2, "0")}` : endOfMonth(Number(m[4]), month);
  }
  if (m[5]) return `${m[5]}-${m[6]}-${m[7]}`;
  return endOfMonth(Number(m[9]), Number(m[8]) * 3);
}

/** Warns on overdue reviews and outdated future-event statements; `today` is `YYYY-MM-DD`. */
export function checkReviewDates(nodes: readonly ValidatedNode[], today: string, diagnostics: Diagnostics): void {
  for (const node of nodes) {
    const fm = node.frontmatter;
    const file = node.source.file;
    // Parsed, checked as real dates and ordered by the validate stage.
    const reviewBy = node.dates.review_by;
    if (reviewBy && reviewBy.slice(0, 10) < today) {
      diagnostics.add({ code: "review_overdue", file, line: node.parsed.locate(["review_by"]), pointer: toDisplayPath(["review_by"]), message: `review_by ${fm.review_by} has passed (today ${today}): check the node against its sources and set reviewed and review_by` });
    }
    // The raw file, so the line reported is the line an author opens.
    const raw = node.source.raw;
    for (const m of raw.matchAll(FUTURE_EVENT)) {
      const meant = lastDayMeant(m[0]);
      if (!meant || meant >= today) continue;
      const line = 1 + (raw.slice(0, m.index).match(/\n/g)?.length ?? 0);
      if (CORRECTING.test(raw.split("\n")[line - 1] ?? "")) continue;
      diagnostics.add({ code: "statement_outdated", file, line, message: `"${m[0]}" announces a date that has passed (today ${today}): state what happened, with its source` });
    }
  }
}
