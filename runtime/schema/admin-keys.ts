/**
 * Shapes of the admin key routes (`GET /api/admin/keys`, `POST /api/admin/keys/revoke`) and of the
 * operator CLI's `--json` output, declared once: the admin view is the public key view plus the
 * fields only an operator may see.
 */
import { Type, type Static } from "@sinclair/typebox";
import { KeyDetailsSchema } from "./responses.ts";

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const AdminKeyViewSchema = Type.Composite([
  KeyDetailsSchema,
  Type.Object({
    agent_id: Nullable(Type.String()),
    source: Type.String(),
    revoked_at: Nullable(Type.String()),
  }),
]);
export type AdminKeyView = Static<typeof AdminKeyViewSchema>;

export const AdminKeyListSchema = Type.Object({ keys: Type.Array(AdminKeyViewSchema) });
export type AdminKeyList = Static<typeof AdminKeyListSchema>;

export const RevokeKeyRequestSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: "^[0-9a-f]{12}$", description: "Public key id (as listed)" })),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "The full key, instead of its id" })),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1 },
);
export type RevokeKeyRequest = Static<typeof RevokeKeyRequestSchema>;
