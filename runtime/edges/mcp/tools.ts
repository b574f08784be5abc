/**
 * The MCP tools: the MCP-only ones, defined here, and those each route file defines over the
 * same function its REST route calls and names in its declaration (`mcp`). `mcpTools` joins them
 * in the order tools/list shows them; POST /mcp's description lists the same.
 */
import { Type } from "@sinclair/typebox";
import { ResolvedVerticalSchema } from "../../shared/schema/catalog.ts";
import { ListVerticalsRequestSchema } from "../../shared/schema/requests.ts";
import type { RouteDeclaration } from "../routes/route-declaration.ts";
import { defineTool, type ToolDefinition } from "./tool-definition.ts";

/** Tools with no REST route of their own (list_verticals reads the catalogue the build ships). */
export const MCP_ONLY_TOOLS: readonly ToolDefinition[] = [
  defineTool({
    name: "list_verticals",
    title: "List verticals",
    description:
      "Lists the knowledge verticals with their status (live, coming_soon, planned), access model (fully_open, index_free, paid), node count and root node. Free; needs no key.",
    input: ListVerticalsRequestSchema,
    output: Type.Object({ verticals: Type.Array(ResolvedVerticalSchema) }),
    run: async (ctx) => ({ structured: { verticals: ctx.deps.build.current.catalog.verticals } }),
    rank: 1,
  }),
];

/** Every tool, in the order tools/list shows them: by rank, then unranked ones in route order. */
export function mcpTools(routes: readonly RouteDeclaration[]): readonly ToolDefinition[] {
  const tools = [...MCP_ONLY_TOOLS, ...routes.flatMap((r) => r.mcp ?? [])];
  return tools.sort((a, b) => (a.rank ?? Number.POSITIVE_INFINITY) - (b.rank ?? Number.POSITIVE_INFINITY));
}
