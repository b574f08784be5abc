/**
 * The tools one app serves, prepared once when the MCP plugin is registered: the tools/list
 * entries (what a client sees, without the validator and the function) and the lookup by name.
 */
import type { ToolDefinition } from "./tool-definition.ts";

export interface ToolSet {
  listed: ReadonlyArray<Pick<ToolDefinition, "name" | "title" | "description" | "inputSchema" | "outputSchema" | "annotations">>;
  byName: ReadonlyMap<string, ToolDefinition>;
}

export function toolSet(tools: readonly ToolDefinition[]): ToolSet {
  return {
    listed: tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      outputSchema,
      annotations,
    })),
    byName: new Map(tools.map((t) => [t.name, t])),
  };
}
