/**
 * Authoring lint: what the scaffold (`npm run new`) leaves for the author to replace. A `TODO`
 * anywhere in a node, or a source on example.org / example.com, is a warning in a dev build and an
 * error in a release build (`--release`): placeholder knowledge must never reach agents, and
 * every rule must cite a real primary source.
 */

import type { ResolvedBuildConfig } from "../config.ts";
import type { Diagnostics } from "../diagnostics.ts";
import type { ValidatedNode } from "./validate.ts";

const TODO_RE = /\bTODO\b/;
const EXAMPLE_HOST_RE = /^(?:[\w-]+\.)*example\.(?:org|com|net)$/i;

export function lintPlaceholders(
  nodes: readonly ValidatedNode[],
  config: Pick<ResolvedBuildConfig, "release">,
  diagnostics: Diagnostics,
): void {
  const fatal = config.release;
  const consequence = fatal ? "a release build refuses it" : "a release build (--release) will refuse it";
  for (const node of nodes) {
    // 1. The first TODO of the file (one issue per node is enough to find them all with a search).
    const lines = node.source.raw.split("\n");
    const at = lines.findIndex((line) => TODO_RE.test(line));
    if (at >= 0) {
      const count = lines.filter((line) => TODO_RE.test(line)).length;
      diagnostics.add({
        code: "placeholder_content",
        file: node.source.file,
        line: at + 1,
        message: `${count} line(s) still say TODO; replace the placeholders (${consequence})`,
        fatal,
      });
    }
    // 2. Sources that point at the documentation domains instead of the primary source.
    node.frontmatter.sources.forEach((source, i) => {
      if (!_isExampleUrl(source.url)) return;
      diagnostics.add({
        code: "placeholder_content",
        file: node.source.file,
        line: node.parsed.locate(["sources", i, "url"]),
        pointer: `sources[${i}].url`,
        message: `"${source.url}" is a placeholder, not the primary source; cite the official text (${consequence})`,
        fatal,
      });
    });
  }
}

// --- Internal helpers ---

function _isExampleUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    return EXAMPLE_HOST_RE.test(new URL(url).hostname);
  } catch {
    return false;
  }
}
