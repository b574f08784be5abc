/**
 * Text to HTML for the browse site: escaping, and the small markdown subset authors use in layer
 * text (paragraphs, `-` lists, `code`, **bold**, [links](https://…)). Anything else stays literal
 * text; nothing from content is ever emitted unescaped.
 */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]!);
}

/** Renders a layer's markdown text as HTML blocks. */
export function renderMarkdown(text: string): string {
  const blocks: string[] = [];
  for (const block of text.split(/\n{2,}/)) {
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    if (lines.length === 0) continue;
    if (lines.every((l) => LIST_ITEM_RE.test(l) || /^\s{2,}\S/.test(l))) {
      const items: string[] = [];
      for (const line of lines) {
        if (LIST_ITEM_RE.test(line)) items.push(line.replace(LIST_ITEM_RE, ""));
        else items[items.length - 1] += ` ${line.trim()}`;
      }
      blocks.push(`<ul>${items.map((i) => `<li>${renderInline(i)}</li>`).join("")}</ul>`);
    } else if (/^#{1,6}\s/.test(lines[0]!)) {
      blocks.push(`<h4>${renderInline(lines[0]!.replace(/^#+\s*/, ""))}</h4>`);
      if (lines.length > 1) blocks.push(`<p>${renderInline(lines.slice(1).join(" "))}</p>`);
    } else {
      blocks.push(`<p>${renderInline(lines.join(" "))}</p>`);
    }
  }
  return blocks.join("\n");
}

/** Inline markdown: code spans first (their content is literal), then bold and https links. */
export function renderInline(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part) => {
      if (part.startsWith("`") && part.endsWith("`") && part.length > 1) return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      return escapeHtml(part)
        .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
        .replace(/\[([^\]]+)\]\((https:\/\/[^)\s]+)\)/g, '<a href="$2" rel="noopener">$1</a>');
    })
    .join("");
}

// --- Internal helpers ---

const HTML_ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const LIST_ITEM_RE = /^\s*(?:[-*]|\d+\.)\s+/;
