/**
 * Authored dates → one canonical form. A date without a time is midnight UTC (AUTHORING.md);
 * every time is converted to UTC and written `YYYY-MM-DDTHH:MM:SSZ`, so sorting strings sorts time.
 */

/**
 * `undefined` when the string is not a real calendar date (e.g. `2026-02-30`).
 * @example toIsoDateTime("2026-11-01") // "2026-11-01T00:00:00Z"
 * @example toIsoDateTime("2026-11-01T10:30+01:00") // "2026-11-01T09:30:00Z"
 */
export function toIsoDateTime(authored: string): string | undefined {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(authored);
  const ms = Date.parse(dateOnly ? `${authored}T00:00:00Z` : authored);
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  // Date.parse rolls 2026-02-30 over to March; a real date round-trips to the same day.
  if (dateOnly && iso.slice(0, 10) !== authored) return undefined;
  if (!dateOnly && !_sameCalendarDay(authored)) return undefined;
  return iso.replace(/\.\d{3}Z$/, "Z");
}

// --- Internal helpers ---

function _sameCalendarDay(authored: string): boolean {
  const [y, m, d] = authored.slice(0, 10).split("-").map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(y, m - 1, d));
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
}
