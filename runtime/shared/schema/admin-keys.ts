/**
 * Shapes of the admin key routes (`GET /api/admin/keys`, `POST /api/admin/keys/revoke`) and of the
 * operator CLI's `--json` output, declared once: the admin view is the public key view plus the
 * fields only an operator may see.
 */
import { type Static, Type } from "@sinclair/typebox";
import { KeyDetailsSchema, UsageHistorySchema } from "./responses.ts";

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

/** `GET /api/admin/keys/usage` and `vkr keys usage --json`: a key's daily usage history. */
export const KeyUsageSchema = Type.Object({
  id: Type.String(),
  /** The days the history covers, today included. */
  days: Type.Integer(),
  /** Calls over those days. */
  total: Type.Integer({ minimum: 0 }),
  usage_history: UsageHistorySchema,
});
export type KeyUsage = Static<typeof KeyUsageSchema>;
export type AdminKeyList = Static<typeof AdminKeyListSchema>;

export const RevokeKeyRequestSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: "^[0-9a-f]{12}$", description: "Public key id (as listed)" })),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "The full key, instead of its id" })),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1 },
);
export type RevokeKeyRequest = Static<typeof RevokeKeyRequestSchema>;

const KeyRefProperties = {
  id: Type.Optional(Type.String({ pattern: "^[0-9a-f]{12}$", description: "Public key id (as listed)" })),
  key: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "The full key, instead of its id" })),
};

export const RerollKeyRequestSchema = Type.Object(
  {
    ...KeyRefProperties,
    grace_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2_592_000,
        description: "How long the old secret keeps working (default 86400, at most 30 days)",
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type RerollKeyRequest = Static<typeof RerollKeyRequestSchema>;

export const UpdateKeyRequestSchema = Type.Object(
  {
    ...KeyRefProperties,
    label: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100, description: "The new label; null removes it" }))),
    expires_at: Type.Optional(
      Nullable(Type.String({ minLength: 10, maxLength: 40, description: "ISO 8601 date or date-time; null: never expires" })),
    ),
  },
  { additionalProperties: false, minProperties: 2 },
);
export type UpdateKeyRequest = Static<typeof UpdateKeyRequestSchema>;

export const RerolledKeySchema = Type.Composite([
  Type.Object({
    key: Type.String({ description: "The new secret, shown only now" }),
    previous_valid_until: Type.String({ description: "Until when the previous secret still works" }),
  }),
  AdminKeyViewSchema,
]);

export const AuditEntrySchema = Type.Object({
  id: Type.String(),
  at: Type.String(),
  actor: Type.String({ description: "admin:<bearer digest prefix>, cli:<os user>, operator, payment:<method>, admin, trial, system" }),
  action: Type.String(),
  subject: Type.String({ description: "key:<id>, purchase:<id>, method:<id> or release:<build id>" }),
  outcome: Type.String(),
  account: Nullable(Type.String()),
  key_ids: Type.Array(Type.String()),
  detail: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])),
});

export const AuditPageSchema = Type.Object({
  entries: Type.Array(AuditEntrySchema),
  next: Nullable(Type.String({ description: "The cursor of the next (older) page" })),
});
