/**
 * The typed client of the service: openapi-fetch over the types generated from the OpenAPI
 * description (client/schema.gen.ts). Paths, parameters, bodies and answers are all checked by the
 * compiler; credentials are set once here.
 * @example
 *   const api = createClient({ baseUrl: "https://knowledge.example", key: process.env.SERVICE_KEY });
 *   const { data, error } = await api.GET("/api/demo", { params: { query: { vertical: "travel", lean: true } } });
 */
import createFetchClient, { type Client } from "openapi-fetch";
// ".js", not ".ts": this file is also compiled into the installable package (client/package.json),
// whose .d.ts must name the file it ships (schema.gen.d.ts); type-only, so nothing loads it at run time.
import type { paths } from "./schema.gen.js";

export type { components, operations, paths } from "./schema.gen.js";
export type { AnswerExpectation, AnswerIdentity, AnswerKeySet, AnswerVerification, SavedAnswer } from "./verify-answer.js";
export { fetchSigningKeys, parseIdentity, parseSavedAnswer, verifyAnswer } from "./verify-answer.js";

export interface ClientOptions {
  /** The service's base URL, without a trailing slash. */
  baseUrl: string;
  /** A membership or trial key, sent as X-Service-Key. */
  key?: string | undefined;
  /** The admin bearer for POST /api/keys and the /api/admin routes. */
  adminKey?: string | undefined;
  /** A per-use payment token, sent as pay-network-pay-id. */
  payToken?: string | undefined;
  /** Another fetch (tests, proxies, retries). */
  fetch?: typeof globalThis.fetch;
  headers?: Record<string, string>;
}

export type ServiceClient = Client<paths>;

export function createClient(options: ClientOptions): ServiceClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers["x-service-key"] = options.key;
  if (options.adminKey) headers.authorization = `Bearer ${options.adminKey}`;
  if (options.payToken) headers["pay-network-pay-id"] = options.payToken;
  return createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
