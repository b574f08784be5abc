/**
 * Mixed-script words in identifiers (UTS #39, section 5.1): "pаypal" with a Cyrillic а, or an
 * "о" of another script inside a Latin agent id, reads like the Latin name it imitates but is a
 * new account. A word (the run between separators such as `-`, `_`, `.` and `@`) must be written
 * in one script; characters common to all scripts (digits, punctuation) and combining marks
 * inherit the script around them, and the combinations UTS #39 calls highly restrictive pass:
 * Japanese (Han, Hiragana, Katakana), Korean (Han, Hangul), Chinese with Bopomofo, each also with
 * Latin. Whole words written in another script ("агент") stay allowed, so a whole-script
 * lookalike of a Latin word is not caught here: that needs the confusables table itself.
 * Script membership comes from the engine's Unicode data (`\p{Script_Extensions=…}`).
 */

/** The first word of `text` that mixes scripts, or null. */
export function mixedScriptWord(text: string): string | null {
  for (const word of text.split(/[\s\p{P}\p{S}]+/u)) if (word !== "" && !_singleScript(word)) return word;
  return null;
}

// --- Internal helpers ---

/** Scripts with letters in use today and the historic ones with Latin lookalikes. */
const SCRIPTS = [
  "Latin",
  "Greek",
  "Cyrillic",
  "Armenian",
  "Hebrew",
  "Arabic",
  "Syriac",
  "Thaana",
  "Nko",
  "Devanagari",
  "Bengali",
  "Gurmukhi",
  "Gujarati",
  "Oriya",
  "Tamil",
  "Telugu",
  "Kannada",
  "Malayalam",
  "Sinhala",
  "Thai",
  "Lao",
  "Tibetan",
  "Myanmar",
  "Georgian",
  "Hangul",
  "Ethiopic",
  "Cherokee",
  "Canadian_Aboriginal",
  "Ogham",
  "Runic",
  "Khmer",
  "Mongolian",
  "Hiragana",
  "Katakana",
  "Bopomofo",
  "Han",
  "Yi",
  "Coptic",
  "Tifinagh",
  "Lisu",
  "Vai",
  "Bamum",
  "Osage",
  "Adlam",
  "Glagolitic",
  "Gothic",
  "Old_Italic",
  "Deseret",
  "Javanese",
  "Balinese",
  "Sundanese",
].map((name) => ({ name, re: new RegExp(`\\p{scx=${name}}`, "u") }));

/** UTS #39's augmented scripts: a Han character also counts as Japanese, Korean and Chinese. */
const AUGMENTED: Record<string, string[]> = {
  Han: ["Japanese", "Korean", "HanBopomofo"],
  Hiragana: ["Japanese"],
  Katakana: ["Japanese"],
  Hangul: ["Korean"],
  Bopomofo: ["HanBopomofo"],
};

const SCRIPTED = /[\p{L}\p{M}\p{N}]/u;
const SHARED = /[\p{scx=Common}\p{scx=Inherited}]/u;

function _singleScript(word: string): boolean {
  const sets: Array<Set<string>> = [];
  let latin = false;
  for (const ch of word) {
    if (!SCRIPTED.test(ch) || SHARED.test(ch)) continue;
    const scripts = SCRIPTS.filter((s) => s.re.test(ch)).flatMap((s) => [s.name, ...(AUGMENTED[s.name] ?? [])]);
    // A script not listed above is its own: it mixes with nothing.
    const own = new Set(scripts.length > 0 ? scripts : [`other:${ch}`]);
    // Latin alongside Japanese, Korean or Chinese with Bopomofo is highly restrictive, not mixed.
    if (own.size === 1 && own.has("Latin")) latin = true;
    else sets.push(own);
  }
  const [first, ...rest] = sets;
  if (first === undefined) return true;
  const resolved = [...first].filter((s) => rest.every((set) => set.has(s)));
  if (!latin) return resolved.length > 0;
  return resolved.some((s) => s === "Latin" || s === "Japanese" || s === "Korean" || s === "HanBopomofo");
}
