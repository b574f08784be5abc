/**
 * The one RFC 9421 (HTTP Message Signatures) implementation of the project's signed answers,
 * shared by the signer (`runtime/shared/answer-signature.ts`) and the verifier
 * (`client/verify-answer.ts`): the `Knowledge-Identity` dictionary (RFC 8941), the covered
 * components and their parameters (`Signature-Input`), the signature base (RFC 9421 §2.5) and the
 * `Content-Digest` field (RFC 9530). Pure string work with no imports, so it ships in the client
 * package (browsers, edge runtimes) and the server bundles the same file.
 */

/** What an answer is, as the signed `Knowledge-Identity` header states it. */
export interface KnowledgeIdentity {
  vertical: string;
  /** Absent for an index, a search or a delta page. */
  node?: string;
  version?: string;
  /** full, lean, locked, locked.lean, index, index.lean, evaluation, search, delta. */
  view: string;
  /** A layer selection (`layers=`), joined with `+` in canonical order. */
  layers?: string;
  /**
   * base64 sha-256 of the RFC 8785 canonical JSON of what a dynamic answer was computed from (the
   * facts of an evaluation, the query of a search or a delta page).
   */
  input?: string;
  build: string;
}

/** The signature's label in `Signature-Input` / `Signature`. */
export const SIGNATURE_LABEL = "vkr";
/** `tag` parameter (RFC 9421 §2.3): says what the signature is for, so it is never taken for another. */
export const SIGNATURE_TAG = "vkr-answer";
export const COVERED_COMPONENTS = ["content-digest", "knowledge-identity"] as const;

/** The parts of a `Signature-Input` member. */
export interface SignatureInput {
  label: string;
  /** The member's value after `<label>=`: the inner list and its parameters, as signed. */
  params: string;
  components: string[];
  kid?: string;
  /** Seconds since the epoch; absent on a build's own signature. */
  created?: number;
}

/** @example formatContentDigest("X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=") // 'sha-256=:X48E…=:' */
export function formatContentDigest(base64Sha256: string): string {
  return `sha-256=:${base64Sha256}:`;
}

/**
 * The identity as a structured-field dictionary (RFC 8941), members in a fixed order.
 * @example formatIdentity({ vertical: "travel", node: "trv-a", version: "1f2e", view: "lean", build: "9c0d" })
 *   // 'vertical="travel", node="trv-a", version="1f2e", view="lean", build="9c0d"'
 */
export function formatIdentity(identity: KnowledgeIdentity): string {
  const parts = [`vertical=${_sfString(identity.vertical)}`];
  if (identity.node !== undefined) parts.push(`node=${_sfString(identity.node)}`);
  if (identity.version !== undefined) parts.push(`version=${_sfString(identity.version)}`);
  parts.push(`view=${_sfString(identity.view)}`);
  if (identity.layers !== undefined) parts.push(`layers=${_sfString(identity.layers)}`);
  if (identity.input !== undefined) parts.push(`input=:${identity.input}:`);
  parts.push(`build=${_sfString(identity.build)}`);
  return parts.join(", ");
}

/** `vertical="travel", node="trv-a", …` → its members; null when it is not our dictionary. */
export function parseIdentity(text: string): KnowledgeIdentity | null {
  const out: Record<string, string> = {};
  const re = /\s*([a-z][a-z0-9_.-]*)=(?:"((?:[^"\\]|\\.)*)"|:([A-Za-z0-9+/=]*):)\s*(?:,|$)/y;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return null;
    out[m[1]!] = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3]!;
    at = re.lastIndex;
  }
  if (!out.vertical || !out.view || !out.build) return null;
  return out as unknown as KnowledgeIdentity;
}

/**
 * `Signature-Input` member value: covered components and parameters. `created` (seconds) is set on
 * dynamic answers; a build's signature has none, so the same build always carries the same bytes.
 */
export function signatureParams(kid: string, created?: number): string {
  return `${COVERED_LIST}${created === undefined ? "" : `;created=${created}`};keyid=${_sfString(kid)};alg="ed25519";tag="${SIGNATURE_TAG}"`;
}

/** The covered components as `Signature-Input` lists them: `"content-digest" "knowledge-identity"`. */
export function coveredComponentsText(): string {
  return COVERED_COMPONENTS.map((c) => `"${c}"`).join(" ");
}

/** The first member of a `Signature-Input` header; null when it does not parse. */
export function parseSignatureInput(header: string): SignatureInput | null {
  const member = /^\s*([a-z*][a-z0-9_.*-]*)=(.*)$/.exec(header);
  if (!member) return null;
  const [, label, params] = member as unknown as [string, string, string];
  const components = /^\(([^)]*)\)/.exec(params)?.[1]?.split(" ").filter(Boolean) ?? [];
  const kid = /;keyid="([^"\\]*)"/.exec(params)?.[1];
  const created = /;created=(\d+)/.exec(params)?.[1];
  return { label, params, components, ...(kid ? { kid } : {}), ...(created ? { created: Number(created) } : {}) };
}

/** The base64 signature of member `label` in a `Signature` header, if there is one. */
export function signatureOf(header: string, label: string): string | undefined {
  return new RegExp(`(?:^|,)\\s*${label.replace(/[.*]/g, "\\$&")}=:([A-Za-z0-9+/=]*):`).exec(header)?.[1];
}

/** The signature base of RFC 9421 §2.5 for our covered components. */
export function signatureBase(digestHeader: string, identityHeader: string, params: string): string {
  return `"content-digest": ${digestHeader}\n"knowledge-identity": ${identityHeader}\n"@signature-params": ${params}`;
}

// --- Internal helpers ---

const COVERED_LIST = `(${coveredComponentsText()})`;

/** sf-string: printable ASCII, `"` and `\` escaped. Ids, versions and slugs are ASCII by schema; anything else is a bug. */
function _sfString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new Error(`not a structured-field string: ${JSON.stringify(value.slice(0, 60))}`);
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
