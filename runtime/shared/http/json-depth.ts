/**
 * How deep a JSON text nests, measured on the text before it is parsed. Validation and its error
 * messages walk a value recursively, so some 4,000 arrays inside one another (8 KB) overflowed
 * the stack while a validation error was formatted: a 500 by the body's shape. No body of this
 * API nests more than a few levels; the bound leaves room for MCP tool arguments.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * True when `text` opens more than `max` arrays or objects inside one another. One pass, no
 * recursion; brackets inside strings do not count. Malformed text is left to JSON.parse.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
