/** `GET /` with `Accept: application/json`: what an agent needs to start, in one small document. */
import { type Static, Type } from "@sinclair/typebox";

export const ServiceDescriptionSchema = Type.Object({
  object: Type.Literal("service_description"),
  name: Type.String(),
  description: Type.String(),
  api_version: Type.String(),
  build_id: Type.String(),
  links: Type.Object({
    openapi: Type.String(),
    docs: Type.String(),
    status: Type.String(),
    browse: Type.String(),
    llms_txt: Type.String(),
    llms_full_txt: Type.String(),
    mcp: Type.String({ description: "MCP endpoint (Streamable HTTP, JSON-RPC 2.0 over POST)" }),
    trial: Type.String(),
  }),
  verticals: Type.Array(
    Type.Object({
      slug: Type.String(),
      title: Type.String(),
      status: Type.String(),
      index_free: Type.Boolean(),
      fully_open: Type.Boolean(),
      nodes: Type.Integer({ minimum: 0 }),
      index: Type.String({ description: "Path of the vertical's root index" }),
    }),
  ),
  authentication: Type.Object({ key_header: Type.String(), payment_header: Type.String(), trial: Type.String() }),
});
export type ServiceDescription = Static<typeof ServiceDescriptionSchema>;
