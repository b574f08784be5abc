/**
 * Checking a saved answer later, with no server: every answer carries `Content-Digest` (sha-256 of
 * the body) and an RFC 9421 signature (Ed25519) over that digest and `Knowledge-Identity` (which
 * vertical, node, version, view and build it is). Give the saved response and the service's JWK
 * Set (`/.well-known/jwks.json`, saved alongside or fetched later; rotated keys stay in it).
 * WebCrypto only, so it runs in Node 20+, browsers and edge runtimes. A signature proves who made
 * the answer and what it says it is; give an expectation (node, version, build, facts, maximum age) to
 * refuse a genuine answer to another question.
 * @example
 *   const saved = await readFile("answer.http");              // curl -si …/api/demo?… > answer.http
 *   const jwks = await fetchSigningKeys("https://knowledge.example");
 *   const result = await verifyAnswer(saved, jwks);           // { ok: true, identity: { node, version, build, … } }
 *   await verifyAnswer(saved, jwks, { node: "aic-triage", maxAgeSeconds: 3600 }); // or { ok: false, reason }
 */
import {
  coveredComponentsText,
  formatContentDigest,
  type KnowledgeIdentity,
  parseIdentity,
  parseSignatureInput,
  signatureBase,
  signatureOf,
} from "./http-signature.ts";

export { parseIdentity } from "./http-signature.ts";

/** A JWK Set as /.well-known/jwks.json serves it. */
export interface AnswerKeySet {
  keys: Array<{ kty: string; crv: string; x: string; kid: string; [member: string]: unknown }>;
}

/** What a signed answer says it is (`Knowledge-Identity`). */
export type AnswerIdentity = KnowledgeIdentity;

export type AnswerVerification =
  | {
      ok: true;
      identity: AnswerIdentity;
      kid: string /** When a dynamic answer was signed; absent for the build's own signature. */;
      created?: Date;
    }
  | { ok: false; reason: string; identity?: AnswerIdentity; kid?: string };

/**
 * What the caller asked for: a signature proves who made an answer and what it says it is, not
 * that it answers this question. Each member given must match, or the answer is refused.
 */
export interface AnswerExpectation {
  vertical?: string;
  node?: string;
  /** The node's version (from the index, or an answer kept earlier). */
  version?: string;
  /** The build id: the answer must come from this build (`/status`, or the index's answer). */
  build?: string;
  view?: string;
  /** The facts an evaluation was asked with (any key order): compared through their RFC 8785 sha-256. */
  facts?: Record<string, unknown>;
  /** The same digest given directly (`input` of `Knowledge-Identity`, base64), for a search or delta query. */
  input?: string;
  /** Refuse an answer signed longer ago than this, or one without a signing time. */
  maxAgeSeconds?: number;
  /** The time to measure the age against; default now. */
  now?: Date;
}

/** The parts of a saved answer that are checked: its body bytes and its signature headers (lowercase names). */
export interface SavedAnswer {
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * Verifies a saved answer: a raw HTTP response (`curl -si`), an MCP tool result or JSON-RPC
 * response (signature in `_meta`), or `{ headers, body }`.
 */
export async function verifyAnswer(
  saved: string | Uint8Array | SavedAnswer,
  keys: AnswerKeySet,
  expectation: AnswerExpectation = {},
): Promise<AnswerVerification> {
  let answer: SavedAnswer;
  try {
    answer = typeof saved === "object" && !(saved instanceof Uint8Array) ? saved : parseSavedAnswer(saved);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  const h = answer.headers;
  const digest = h["content-digest"];
  const identityText = h["knowledge-identity"];
  const input = h["signature-input"];
  const signatureHeader = h.signature;
  if (!digest || !identityText || !input || !signatureHeader)
    return { ok: false, reason: "not a signed answer: Content-Digest, Knowledge-Identity, Signature-Input and Signature are all needed" };
  const identity = parseIdentity(identityText);
  if (!identity) return { ok: false, reason: `Knowledge-Identity does not parse: ${identityText.slice(0, 200)}` };

  const signed = parseSignatureInput(input);
  if (!signed) return { ok: false, reason: "Signature-Input does not parse", identity };
  const { label, params, components } = signed;
  if (components.join(" ") !== coveredComponentsText())
    return {
      ok: false,
      reason: `the signature must cover content-digest and knowledge-identity; it covers ${components.join(" ") || "nothing"}`,
      identity,
    };
  const kid = signed.kid;
  if (!kid) return { ok: false, reason: "the signature names no keyid", identity };
  const sig = signatureOf(signatureHeader, label);
  if (!sig) return { ok: false, reason: `Signature has no member ${label}`, identity, kid };
  const jwk = keys.keys.find((k) => k.kid === kid);
  if (!jwk)
    return {
      ok: false,
      reason: `key ${kid} is not in the key set: not signed by this service, or the key set is not the service's`,
      identity,
      kid,
    };

  const expected = formatContentDigest(_base64(new Uint8Array(await crypto.subtle.digest("SHA-256", _buffer(answer.body)))));
  if (digest.trim() !== expected)
    return { ok: false, reason: "the body does not match Content-Digest: the answer was changed after it was signed", identity, kid };
  const base = signatureBase(digest.trim(), identityText.trim(), params.trim());
  const key = await crypto.subtle.importKey("jwk", { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, { name: "Ed25519" }, false, ["verify"]);
  const valid = await crypto.subtle.verify({ name: "Ed25519" }, key, _buffer(_unbase64(sig)), _buffer(new TextEncoder().encode(base)));
  if (!valid)
    return { ok: false, reason: "the signature does not verify: the identity or the digest was changed after signing", identity, kid };
  const created = signed.created !== undefined ? new Date(signed.created * 1000) : undefined;
  const mismatch = await _mismatch(identity, created, expectation);
  if (mismatch !== null) return { ok: false, reason: mismatch, identity, kid };
  return { ok: true, identity, kid, ...(created ? { created } : {}) };
}

/** The service's published keys. */
export async function fetchSigningKeys(baseUrl: string, fetchImpl: typeof fetch = fetch): Promise<AnswerKeySet> {
  const res = await fetchImpl(`${baseUrl.replace(/\/+$/, "")}/.well-known/jwks.json`);
  if (!res.ok) throw new Error(`GET /.well-known/jwks.json answered ${res.status}`);
  return (await res.json()) as AnswerKeySet;
}

/**
 * A saved answer's body and signature headers: a raw HTTP response (status line, headers, blank
 * line, body, as `curl -si` writes it), or JSON: an MCP tool result, a JSON-RPC response holding
 * one, or a resources/read content item (signature in `_meta`, body = the text block).
 */
export function parseSavedAnswer(saved: string | Uint8Array): SavedAnswer {
  const bytes = typeof saved === "string" ? new TextEncoder().encode(saved) : saved;
  const text = new TextDecoder().decode(bytes);
  if (/^HTTP\/[\d.]+ \d{3}/.test(text)) return _parseHttp(bytes);
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error("neither a raw HTTP response (curl -si) nor JSON (an MCP result)");
  }
  const result = json?.result ?? json;
  const item = Array.isArray(result?.contents) ? result.contents[0] : result;
  const meta = item?._meta ?? result?._meta;
  const body =
    typeof item?.text === "string"
      ? item.text
      : Array.isArray(item?.content)
        ? item.content.find((c: any) => c?.type === "text")?.text
        : undefined;
  if (!meta || typeof body !== "string") throw new Error("JSON without an MCP text block and its _meta signature");
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(meta)) if (typeof value === "string") headers[name.toLowerCase()] = value;
  return { headers, body: new TextEncoder().encode(body) };
}

// --- Internal helpers ---

/** Signed in the future by more than this (clock skew) is refused with a maximum age. */
const SKEW_SECONDS = 60;

/** Why a genuine answer is not the one expected, or null. */
async function _mismatch(identity: AnswerIdentity, created: Date | undefined, expected: AnswerExpectation): Promise<string | null> {
  for (const member of ["vertical", "node", "version", "build", "view", "input"] as const) {
    const want = expected[member];
    if (want !== undefined && identity[member] !== want)
      return `a genuine answer, but for ${member} ${JSON.stringify(identity[member] ?? null)}, not ${JSON.stringify(want)}`;
  }
  if (expected.facts !== undefined) {
    const digest = _base64(
      new Uint8Array(await crypto.subtle.digest("SHA-256", _buffer(new TextEncoder().encode(_canonicalJson(expected.facts))))),
    );
    if (identity.input !== digest)
      return identity.input === undefined
        ? "a genuine answer, but not computed from facts (it names no input)"
        : "a genuine answer, but computed from other facts than these";
  }
  if (expected.maxAgeSeconds !== undefined) {
    if (!created) return "the answer carries no signing time (created), so its age is unknown";
    const age = ((expected.now ?? new Date()).getTime() - created.getTime()) / 1000;
    if (age > expected.maxAgeSeconds) return `signed ${Math.floor(age)} s ago, more than the ${expected.maxAgeSeconds} s allowed`;
    if (age < -SKEW_SECONDS) return `signed ${Math.ceil(-age)} s in the future`;
  }
  return null;
}

/**
 * RFC 8785 (JCS) for JSON values: members sorted by UTF-16 code units, and ECMAScript's own
 * serialisation of strings and numbers, which is what JCS specifies.
 */
function _canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(_canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    return `{${members.map((k) => `${JSON.stringify(k)}:${_canonicalJson(record[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function _parseHttp(bytes: Uint8Array): SavedAnswer {
  // The header block ends at the first empty line (CRLF CRLF, or LF LF from an editor).
  let end = -1;
  let skip = 0;
  for (let i = 0; i < bytes.length - 1; i++) {
    if (bytes[i] === 10 && bytes[i + 1] === 10) [end, skip] = [i, 2];
    else if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) [end, skip] = [i, 4];
    if (end !== -1) break;
  }
  if (end === -1) throw new Error("raw HTTP response without a blank line before its body");
  const headers: Record<string, string> = {};
  for (const line of new TextDecoder().decode(bytes.subarray(0, end)).split(/\r?\n/).slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: bytes.subarray(end + skip) };
}

function _buffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function _base64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function _unbase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
