/**
 * A header of weighted values (`Accept`, `Accept-Encoding`): each value lower-cased with its
 * q-value (1 when absent, 0 when unreadable) and its position, for the negotiations that read one.
 * @example parseQualityList("text/html, *\/*;q=0.8") → [{ value: "text/html", q: 1, order: 0 }, { value: "*\/*", q: 0.8, order: 1 }]
 */
export interface QualityItem {
  value: string;
  q: number;
  order: number;
}

export function parseQualityList(header: string): QualityItem[] {
  return header.split(",").map((part, order) => {
    const [value = "", ...params] = part.trim().toLowerCase().split(";");
    const q = Number(params.find((p) => p.trim().startsWith("q="))?.split("=")[1] ?? "1");
    return { value: value.trim(), q: Number.isFinite(q) ? q : 0, order };
  });
}
