/**
 * MCP prompts: short playbooks that walk an agent through a vertical with the tools, always
 * starting from the vertical's root node (taken from the build, so they follow the content) and
 * ending in `evaluate_rules`, which decides from facts and never guesses.
 */
import type { Catalog } from "../../shared/schema/catalog.ts";
import { RPC, RpcError } from "./jsonrpc.ts";

export interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  /** The user message text for the given (checked) arguments. */
  render(args: Record<string, string>, catalog: Catalog): string;
}

export const PROMPTS: readonly PromptDefinition[] = [
  {
    name: "triage_ai_system",
    title: "Triage an AI system under the EU AI Act",
    description:
      "Classifies an AI system under Regulation (EU) 2024/1689 (prohibited, high-risk, transparency, GPAI) and lists the obligations of the role you hold, with citations.",
    arguments: [
      { name: "system", description: "What the AI system does, where it is used and who it affects", required: true },
      { name: "role", description: "Your role: provider, deployer, importer, distributor or product manufacturer", required: false },
    ],
    render: (args, catalog) =>
      _steps(
        catalog,
        "ai-compliance",
        `Triage this AI system under the EU AI Act.\n\nSystem: ${args.system}${args.role ? `\nRole: ${args.role}` : ""}`,
        [
          "Call `search` with the system's purpose and sector to find the nodes that apply (prohibited practices, high-risk classification, transparency, GPAI).",
          'For each node that may apply, call `get_node` (use `layers: ["logic"]` to read only the rules first) and collect the facts its rules ask about.',
          "Answer those facts from the description; leave out any you cannot establish and ask the user instead of guessing.",
          "Call `evaluate_rules` with the facts you have. Report the outcomes that hold with their citations, and list the missing facts with their questions.",
        ],
      ),
  },
  {
    name: "check_passenger_rights",
    title: "Check a delayed or cancelled passenger's rights",
    description:
      "Works out compensation, care, refund and rerouting rights for a disrupted journey (EU261, UK261, US DOT, Montreal Convention, rail, bus and ferry), with citations and deadlines.",
    arguments: [
      {
        name: "situation",
        description: "What happened: route, carrier, delay or cancellation, arrival delay, notice given, reason given",
        required: true,
      },
      { name: "jurisdiction", description: "Where the journey departed or the carrier is based, if known", required: false },
    ],
    render: (args, catalog) =>
      _steps(
        catalog,
        "travel",
        `Check this passenger's rights.\n\nSituation: ${args.situation}${args.jurisdiction ? `\nJurisdiction: ${args.jurisdiction}` : ""}`,
        [
          "Start at the root node to decide which regime applies (EU/UK 261, US, Montreal, rail, bus and ferry), then `search` for the disruption (delay, cancellation, denied boarding, baggage).",
          "Call `get_node` on the matching node and read its logic layer: its facts are the questions to settle (distance, arrival delay, notice, extraordinary circumstances).",
          "Answer the facts from the situation; leave unknown ones out and ask the passenger.",
          "Call `evaluate_rules` and report each entitlement that holds, the amounts and deadlines from the node, and the citations.",
        ],
      ),
  },
  {
    name: "explore_vertical",
    title: "Explore a vertical",
    description: "Orients an agent in any vertical: read its index, follow next_nodes from the root, and fetch only the layers needed.",
    arguments: [
      { name: "vertical", description: "A vertical slug (list_verticals lists them)", required: true },
      { name: "question", description: "What you need to find out", required: false },
    ],
    render: (args, catalog) =>
      _steps(catalog, args.vertical!, `Explore the ${args.vertical} vertical${args.question ? ` to answer: ${args.question}` : ""}.`, [
        "Call `get_index` (lean) to see every node with its summary and layer_tokens, so you can budget before fetching.",
        "Follow next_nodes from the root, or `search` for your question, and call `get_node` with `layers` for only what you need.",
        "Where a node has rules, decide with `evaluate_rules` rather than by reading alone.",
      ]),
  },
];

export const PROMPTS_BY_NAME: ReadonlyMap<string, PromptDefinition> = new Map(PROMPTS.map((p) => [p.name, p]));

/** Checks prompts/get arguments: required ones present, every value a string, no unknown names. */
export function readPromptArguments(prompt: PromptDefinition, raw: unknown): Record<string, string> {
  if (raw !== undefined && (raw === null || typeof raw !== "object" || Array.isArray(raw)))
    throw new RpcError(RPC.invalidParams, `"arguments" must be an object of strings.`);
  const args = (raw ?? {}) as Record<string, unknown>;
  const known = new Set(prompt.arguments.map((a) => a.name));
  for (const [name, value] of Object.entries(args)) {
    if (!known.has(name)) throw new RpcError(RPC.invalidParams, `Unknown argument "${name.slice(0, 64)}" for prompt ${prompt.name}.`);
    if (typeof value !== "string") throw new RpcError(RPC.invalidParams, `Argument "${name}" must be a string.`);
  }
  for (const a of prompt.arguments) {
    if (a.required && (typeof args[a.name] !== "string" || (args[a.name] as string).trim() === "")) {
      throw new RpcError(RPC.invalidParams, `Missing required argument "${a.name}" for prompt ${prompt.name}.`);
    }
  }
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, (v as string).slice(0, 4000)]));
}

// --- Internal helpers ---

function _steps(catalog: Catalog, slug: string, intro: string, steps: string[]): string {
  const canonical = Object.hasOwn(catalog.slugs, slug) ? catalog.slugs[slug]! : slug;
  const vertical = catalog.verticals.find((v) => v.slug === canonical);
  const root = vertical?.root
    ? `The root node of ${canonical} is \`${vertical.root}\`.`
    : `Call list_verticals to see which verticals have content.`;
  return [
    intro,
    "",
    `Use the tools of this server on the vertical \`${canonical}\`. ${root}`,
    ...steps.map((s, i) => `${i + 1}. ${s}`),
    "",
    "Cite the sources the nodes give. Never infer an outcome the rules did not return.",
  ].join("\n");
}
