/**
 * The runtime's view of a vertical's prebuilt search index. Terms are looked up by words from the
 * request, so they live in a Map: a plain object would answer `constructor` or `toString` with
 * its prototype's members.
 */
import type { SearchIndex } from "../../shared/schema/search.ts";

export type SearchTerm = SearchIndex["terms"][string];

export interface LoadedSearchIndex extends Omit<SearchIndex, "terms"> {
  terms: ReadonlyMap<string, SearchTerm>;
}

/**
 * Parses `search/<vertical>.json` (JSON.parse keeps `__proto__` as an own key, so every term survives).
 * @example readSearchIndex(bytes).terms.get("baggag")
 */
export function readSearchIndex(bytes: Uint8Array): LoadedSearchIndex {
  const raw = JSON.parse(Buffer.from(bytes).toString("utf8")) as SearchIndex;
  return { ...raw, terms: new Map(Object.entries(raw.terms)) };
}
