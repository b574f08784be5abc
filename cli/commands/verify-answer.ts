/**
 * `vkr verify-answer <saved-response-file>`: checks an answer saved earlier (a raw HTTP response
 * as `curl -si` writes it, or an MCP tool result) against the service's published keys, from
 * `--jwks` (a saved /.well-known/jwks.json, so it works offline) or `--url` (fetched). Says which
 * vertical, node, version and build the answer is. Exit 0 when it verifies, 4 when it does not.
 */
import { readFile } from "node:fs/promises";
import { type AnswerKeySet, fetchSigningKeys, verifyAnswer } from "../../client/verify-answer.ts";
import { defineCommand } from "../command-line.ts";
import { EXIT, OperatorError } from "../exit-codes.ts";
import { printResult, runOperation } from "../output.ts";

export default defineCommand({
  meta: { name: "verify-answer" },
  args: {
    file: { type: "positional", description: "The saved response (curl -si output, or an MCP tool result as JSON)", required: true },
    jwks: { type: "string", description: "A saved JWK Set (/.well-known/jwks.json) to verify against offline" },
    url: { type: "string", description: "Base URL of the service whose /.well-known/jwks.json to fetch" },
    json: { type: "boolean", description: "Print the result as JSON", default: false },
  },
  run: ({ args }) =>
    runOperation(args.json, async () => {
      const saved = await readFile(args.file).catch((error: unknown) => {
        throw new OperatorError(
          "not_found",
          `cannot read ${args.file}: ${error instanceof Error ? error.message : String(error)}`,
          EXIT.notFound,
        );
      });
      const keys = await _keys(args.jwks, args.url);
      const result = await verifyAnswer(new Uint8Array(saved), keys);
      printResult(args.json, result, () => {
        if (!result.ok) return `NOT VERIFIED: ${result.reason}`;
        const { identity: id, kid, created } = result;
        const what = id.node
          ? `node ${id.vertical}/${id.node} version ${id.version}`
          : `${id.view} of ${id.vertical === "*" ? "every vertical" : id.vertical}`;
        return [
          `verified: ${what}, build ${id.build}`,
          `view ${id.view}${id.layers ? ` (layers ${id.layers})` : ""}${id.input ? `, computed from input sha-256 ${id.input}` : ""}`,
          `signed by key ${kid}${created ? ` at ${created.toISOString()}` : " (undated: served before answers carried created)"}`,
        ].join("\n");
      });
      return result.ok ? EXIT.ok : EXIT.refused;
    }),
});

// --- Internal helpers ---

async function _keys(jwks: string | undefined, url: string | undefined): Promise<AnswerKeySet> {
  if (jwks !== undefined) {
    const text = await readFile(jwks, "utf8").catch(() => {
      throw new OperatorError("not_found", `cannot read the key set ${jwks}`, EXIT.notFound);
    });
    try {
      return JSON.parse(text) as AnswerKeySet;
    } catch {
      throw new OperatorError("invalid_input", `${jwks} is not JSON (a JWK Set)`, EXIT.refused);
    }
  }
  if (url !== undefined) return fetchSigningKeys(url);
  throw new OperatorError("invalid_input", "give the keys: --jwks <saved jwks.json> (offline) or --url <service base URL>", EXIT.refused);
}
