/**
 * One page of the change feed, as a pure function of the build's changelog. The changelog is
 * sorted by (`at`, `id`), so the start of a page is a binary search and a page reads at most the
 * entries it skips for other verticals plus `limit + 1`.
 */
import type { ChangelogEntry } from "../../shared/schema/artifacts.ts";
import type { FeedPosition } from "./cursor.ts";

export interface ChangelogPageOptions {
  /** Only entries strictly after this instant (epoch ms). */
  sinceMs: number | null;
  /** Only entries strictly after this position (from a cursor). */
  after: FeedPosition | null;
  /** Canonical slugs of the verticals to include. */
  verticals: ReadonlySet<string>;
  limit: number;
}

export interface ChangelogPage {
  entries: ChangelogEntry[];
  hasMore: boolean;
}

/**
 * @example pageChangelog(build.changelog, { sinceMs: null, after: null, verticals: new Set(["travel"]), limit: 100 })
 */
export function pageChangelog(changelog: readonly ChangelogEntry[], options: ChangelogPageOptions): ChangelogPage {
  let start = 0;
  if (options.sinceMs !== null) {
    const since = options.sinceMs;
    start = _firstIndex(changelog, (e) => Date.parse(e.at) > since);
  }
  if (options.after !== null) {
    const after = options.after;
    start = Math.max(
      start,
      _firstIndex(changelog, (e) => compareFeedPositions(e, after) > 0),
    );
  }
  const entries: ChangelogEntry[] = [];
  for (let i = start; i < changelog.length; i++) {
    const entry = changelog[i]!;
    if (!options.verticals.has(entry.vertical)) continue;
    if (entries.length === options.limit) return { entries, hasMore: true };
    entries.push(entry);
  }
  return { entries, hasMore: false };
}

/** The feed's order: by time, then by entry id (the same order the build sorts by). */
export function compareFeedPositions(a: FeedPosition, b: FeedPosition): number {
  return a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Epoch ms of a `since` value: an RFC 3339 date-time with a zone, or a date (midnight UTC, as in
 * authoring). `null` when the value is not a real instant (`2026-02-30`, no zone, free text).
 * @example parseSince("2026-11-01T10:00:00+01:00") // Date.UTC(2026, 10, 1, 9)
 */
export function parseSince(value: string): number | null {
  if (!SINCE_RE.test(value)) return null;
  const dateOnly = value.length === 10;
  const ms = Date.parse(dateOnly ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(ms)) return null;
  // Date.parse rolls 2026-02-30 over into March; a real calendar day survives the round trip.
  const [y, m, d] = value.slice(0, 10).split("-").map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(y, m - 1, d));
  if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== m - 1 || probe.getUTCDate() !== d) return null;
  return ms;
}

// --- Internal helpers ---

const SINCE_RE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2}))?$/;

/** First index whose entry satisfies `after`; `after` must be false then true along the array. */
function _firstIndex(entries: readonly ChangelogEntry[], after: (e: ChangelogEntry) => boolean): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (after(entries[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
