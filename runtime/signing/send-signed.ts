/**
 * A dynamic JSON answer with its signature: serialised once, and the signature made over exactly
 * the bytes sent. Prebuilt artifacts never come here; they carry the build's signature.
 */
import type { H3Event } from "h3";
import type { AppDeps } from "../deps.ts";
import { sendBytes } from "../http/respond.ts";
import type { KnowledgeIdentity } from "./answer-signature.ts";

export function sendSignedJson(
  event: H3Event,
  deps: AppDeps,
  body: unknown,
  identity: KnowledgeIdentity,
  now: number,
  headers: Record<string, string> = {},
): Response {
  const text = JSON.stringify(body);
  return sendBytes(event, 200, text, { "cache-control": "no-store", ...headers, ...deps.shared.signer.sign(text, identity, now) });
}
