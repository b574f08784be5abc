/**
 * Canonical JSON and content digests. Every byte the build writes goes through `toCanonicalJson`,
 * so the same content always serialises to the same bytes (sorted keys, no wall clock).
 */
import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every depth, compact (no indentation: agents pay for every
 * token of whitespace), newline-terminated. `undefined` properties are dropped, as
 * `JSON.stringify` does.
 * @example toCanonicalJson({ b: 1, a: [2] }) // '{"a":[2],"b":1}\n'
 */
export function toCanonicalJson(value: unknown): string {
  // Hand-rolled rather than JSON.stringify with a sorting replacer: same bytes, ~3× faster,
  // which matters with 40,000 artifacts per build.
  return (_stringify(value) ?? "null") + "\n";
}

/** Hex sha256 of a string (UTF-8) or bytes. */
export function sha256(input: string | Uint8Array): string {
  return createHash("sha256").update(input).digest("hex");
}

/** Short content digest used for node versions and build ids: 16 hex chars of sha256. */
export function shortDigest(input: string | Uint8Array): string {
  return sha256(input).slice(0, 16);
}

// --- Internal helpers ---

function _stringify(value: unknown): string | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "object":
      break;
    default:
      return undefined; // undefined, functions, symbols: dropped like JSON.stringify does
  }
  if (Array.isArray(value)) return `[${value.map((v) => _stringify(v) ?? "null").join(",")}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const text = _stringify(record[key]);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(",")}}`;
}
