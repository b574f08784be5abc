/**
 * Text for HTML the runtime writes itself (search hits, error pages, the API reference, the card
 * success page): the five characters that could open markup or end an attribute, as numeric
 * references. The build's pages use their own escaper (named entities) in build/browse/.
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
