/**
 * What the payment methods that pay per read (`PaymentMethod.perUse`) add to the description of
 * the reads they can pay for (GET /api/demo, POST /api/evaluate): their paragraph, their query
 * parameters and headers, and the response headers of their 200 and 402, from the registry.
 */
import { Type } from "@sinclair/typebox";
import { perUseMethods } from "../../domain/payments/methods/per-use-read.ts";

export function perUseParagraphs(): string[] {
  return perUseMethods().flatMap((m) => (m.perUse.openapi.description ? [m.perUse.openapi.description] : []));
}

export function perUseParams() {
  return perUseMethods().flatMap((m) => [
    ...(m.perUse.openapi.query ?? []).map((q) => ({
      name: q.name,
      in: "query" as const,
      schema: Type.Union(q.values.map((v) => Type.Literal(v))),
      description: q.description,
    })),
    ...(m.perUse.openapi.headers ?? []).map((h) => ({
      name: h.name,
      in: "header" as const,
      schema: Type.String(),
      description: h.description,
    })),
  ]);
}

export function perUseResponseHeaders(status: number): string[] {
  return perUseMethods().flatMap((m) => m.perUse.openapi.responseHeaders?.[status] ?? []);
}
