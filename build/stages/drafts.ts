/**
 * `draft: true` nodes: built and served by a dev build (so the author sees them in `npm run dev`),
 * left out of a release build together with every `next_nodes` link to them, so published graphs
 * never show or point at unfinished knowledge.
 */
import type { ResolvedBuildConfig } from "../config.ts";
import type { ValidatedNode } from "./validate.ts";

/** @example withoutDrafts(nodes, { release: true }) // nodes minus drafts, links to drafts dropped */
export function withoutDrafts<T extends ValidatedNode>(nodes: readonly T[], config: Pick<ResolvedBuildConfig, "release">): T[] {
  if (!config.release) return [...nodes];
  const drafts = new Set(nodes.filter((n) => n.frontmatter.draft === true).map((n) => `${n.vertical}/${n.id}`));
  if (drafts.size === 0) return [...nodes];
  return nodes
    .filter((n) => !drafts.has(`${n.vertical}/${n.id}`))
    .map((n) => {
      const next = n.frontmatter.next_nodes.filter((id) => !drafts.has(`${n.vertical}/${id}`));
      return next.length === n.frontmatter.next_nodes.length ? n : { ...n, frontmatter: { ...n.frontmatter, next_nodes: next } };
    });
}
