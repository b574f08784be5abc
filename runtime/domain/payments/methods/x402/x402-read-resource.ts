/**
 * What an x402 402 for one read says about the resource, so that x402 discovery services (the
 * Bazaar) can list it: a description, and the `bazaar` extension (how to call it and what it
 * answers, as JSON Schema pointers into our OpenAPI document) in v2's `extensions`, its v1 twin in
 * `outputSchema`. Built from the path and query the caller paid for.
 */
export interface ReadResource {
  description: string;
  /** v2 `PaymentRequired.extensions`. */
  extensions: Record<string, unknown>;
  /** v1 `outputSchema`. */
  outputSchema: Record<string, unknown>;
}

export function readResource(resource: string): ReadResource {
  const url = new URL(resource, "http://resource.invalid");
  const vertical = url.searchParams.get("vertical") ?? "";
  const node = url.searchParams.get("node") ?? "";
  const tool = url.searchParams.get("tool");
  const evaluate = url.pathname === "/api/evaluate" || tool === "evaluate_rules";
  const search = url.pathname === "/api/search";
  const description = evaluate
    ? `Rule evaluation over a gated knowledge node's logic layer${node ? ` (${vertical}/${node})` : ""}`
    : search
      ? "A search whose snippets quote gated layers"
      : `Knowledge node ${vertical}/${node}: its four layers (logic with compiled rules, directive, skill, action), sources and next nodes`;
  const input = evaluate
    ? {
        type: "http",
        method: "POST",
        bodyType: "json",
        queryParams: { pay: "x402" },
        bodyFields: { vertical: "string", node: "string", facts: "object" },
      }
    : { type: "http", method: "GET", queryParams: { vertical, node, pay: "x402" } };
  const output = { type: "json", schema: { $ref: `/openapi.json#/components/schemas/${evaluate ? "EvaluateResponse" : "NodeResponse"}` } };
  return {
    description,
    extensions: {
      bazaar: {
        info: { input, output },
        schema: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: { input: { type: "object" }, output: { type: "object" } },
          required: ["input"],
        },
      },
    },
    outputSchema: { input, output: output.schema },
  };
}
