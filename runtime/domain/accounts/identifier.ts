/**
 * Identifiers people type (agent_id, contact, referred_agent_id) are compared as people read
 * them, so "Agent", "agent ", "ａｇｅｎｔ" and "agent" name one account, one trial, one referral:
 *
 * 1. Unicode NFKC: compatibility forms (fullwidth letters, ligatures, NBSP and the other space
 *    variants become U+0020) and canonical composition (e + U+0301 is é).
 * 2. Trimmed of white space at both ends.
 * 3. Case-folded, locale-independently: upper-cased then lower-cased, which folds the cases
 *    `toLowerCase` alone leaves apart (ß and SS, ς and σ), then NFKC again. Dotted capital İ and
 *    dotless ı both fold to plain i, so the Turkish and the English spelling are one name.
 *
 * Refused (400, with the field's JSON pointer) before any comparison: control characters (C0 and
 * C1), format characters (zero-width space and joiners, bidi controls, BOM, soft hyphen, tags),
 * lone surrogates, private-use characters, line and paragraph separators, a name that is
 * empty after trimming, and a word that mixes scripts once folded ("pаypal" with a Cyrillic а:
 * mixed-script.ts). The refusal is on input only: the fold itself is unchanged, so every stored
 * identity keeps its key and is found as before; a stored mixed-script name still matches its
 * own records (its keys, its account) but can no longer be typed in a new request. NBSP and the other space separators are accepted: NFKC reads them as a
 * space. The fold is idempotent and equals `toLowerCase` on ASCII, so ids stored before it (all
 * lower-cased) are found unchanged.
 */
import { apiError } from "../../shared/errors.ts";
import { mixedScriptWord } from "./mixed-script.ts";

const REFUSED = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Zl}\p{Zp}]/u;
const DOTTED_I = /[\u0130\u0131]|i\u0307/g;

/** The comparable form of an identifier a person typed (see above); no refusal check. */
export function foldIdentifier(raw: string): string {
  const compat = raw.normalize("NFKC").trim();
  return compat.replace(DOTTED_I, "i").toUpperCase().toLowerCase().replace(DOTTED_I, "i").normalize("NFKC");
}

/** `foldIdentifier` for request input: refuses what no one can read, naming the field. */
export function readIdentifier(raw: string, pointer: string): string {
  const bad = REFUSED.exec(raw);
  if (bad) {
    const code = `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    throw apiError("validation_failed", {
      detail: `${pointer}: contains an invisible or control character (${code})`,
      errors: [{ pointer, message: `contains an invisible or control character (${code})` }],
    });
  }
  const folded = foldIdentifier(raw);
  if (folded === "")
    throw apiError("validation_failed", { detail: `${pointer}: empty once trimmed`, errors: [{ pointer, message: "empty once trimmed" }] });
  const mixed = mixedScriptWord(folded);
  if (mixed !== null) {
    const message = `mixes scripts in "${mixed.slice(0, 40)}" (write each word in one script)`;
    throw apiError("validation_failed", { detail: `${pointer}: ${message}`, errors: [{ pointer, message }] });
  }
  return folded;
}
