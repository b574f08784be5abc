/**
 * Layer text (markdown) to HTML for the browse site, with the unified pipeline the build already
 * uses to parse content: remark-parse → remark-gfm (tables, strikethrough, autolinks) →
 * remark-rehype → rehype-sanitize (GitHub's allow-list: no script, no event handlers, no raw HTML)
 * → rehype-stringify. Runs once per page at build time; the runtime only serves the result.
 */
import rehypeSanitize from "rehype-sanitize";
import rehypeStringify from "rehype-stringify";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import remarkRehype from "remark-rehype";
import { unified } from "unified";

// Raw HTML in content is dropped, not passed through: authors write markdown, and a page must
// never carry markup that did not come from the pipeline.
const PROCESSOR = unified().use(remarkParse).use(remarkGfm).use(remarkRehype).use(rehypeSanitize).use(rehypeStringify).freeze();

/**
 * @example renderMarkdown("Use *care*:\n\n```\nx = 1\n```") === "<p>Use <em>care</em>:</p>\n<pre><code>x = 1\n</code></pre>"
 */
export function renderMarkdown(text: string): string {
  return String(PROCESSOR.processSync(text));
}
