/**
 * Layer text is rendered with unified (remark → rehype, sanitized) at build
 * time. Fenced code keeps its lines inside <pre><code>, emphasis and tables render, links keep
 * their target, and anything scriptable in content is dropped.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../build/browse/render-markdown.ts";

const LAYER_TEXT = readFileSync("test/fixtures/markdown/layer-text.md", "utf8");

describe("renderMarkdown (build/browse)", () => {
  const html = renderMarkdown(LAYER_TEXT);

  it("keeps a fenced code block whole, line breaks included, inside <pre><code>", () => {
    expect(html).toContain("<pre><code>system: &#x3C;name / intended purpose>\ntiers: [stop_prohibited | route_high_risk]\n</code></pre>");
  });

  it("renders emphasis, strong, inline code, ordered lists, tables and https links", () => {
    expect(html).toContain("<em>exactly</em>");
    expect(html).toContain("<em>applies on a given date</em>");
    expect(html).toContain("<strong>Regime gate.</strong> <code>ai_act_regime_applies</code>");
    expect(html).toMatch(/<ol>\s*<li>/);
    expect(html).toMatch(/<table>[\s\S]*<th>Tier<\/th>[\s\S]*<td>Art\. 5<\/td>/);
    expect(html).toContain('<a href="https://eur-lex.europa.eu/eli/reg/2024/1689/oj">the Act</a>');
    expect(html).not.toMatch(/\*exactly\*|```/);
  });

  it("drops raw HTML, event handlers and javascript: links from content", () => {
    expect(html).not.toMatch(/<script|<img|onerror|javascript:/i);
  });
});
