/**
 * The authored files of `content/_catalog/`. Each is the shared contract's shape minus what the
 * build computes (counts), and closed against unknown keys so a typo is an error, not a no-op.
 */
import { type Static, type TObject, type TSchema, Type } from "@sinclair/typebox";
import { CohortSchema, LimitsSchema, VerticalEntrySchema } from "../../runtime/shared/schema/catalog.ts";
import { StatusStaticSchema } from "../../runtime/shared/schema/status.ts";

/** `verticals.yaml`: the API version and the spec's Verticals table. */
export const VerticalsFileSchema = Type.Object(
  { api_version: Type.String({ pattern: "^\\d+\\.\\d+\\.\\d+$" }), verticals: Type.Array(VerticalEntrySchema, { minItems: 1 }) },
  { additionalProperties: false },
);
export type VerticalsFile = Static<typeof VerticalsFileSchema>;

/** `cohorts.yaml`: the cohorts in progression order. */
export const CohortsFileSchema = Type.Object({ cohorts: Type.Array(CohortSchema, { minItems: 1 }) }, { additionalProperties: false });
export type CohortsFile = Static<typeof CohortsFileSchema>;

/** `limits.yaml`: exactly the contract's limits. */
export const LimitsFileSchema = LimitsSchema;

const S = StatusStaticSchema.properties;
/**
 * `status.yaml`: the static status parts without what the build computes: the counts (from
 * content) and `cohort_progression.credit_examples` (from the cohorts' loyalty credits).
 */
export const StatusFileSchema = Type.Composite([
  Type.Omit(StatusStaticSchema, ["ai_compliance", "travel", "cohort_progression"]),
  Type.Object({
    ai_compliance: Type.Omit(S.ai_compliance, ["node_count"]),
    travel: Type.Omit(S.travel, ["module_count", "trial_modules"]),
    cohort_progression: Type.Omit(S.cohort_progression, ["credit_examples"]),
  }),
]);
export type StatusFile = Static<typeof StatusFileSchema>;

/**
 * A JSON copy of a schema with `additionalProperties: false` on every plain object (records keep
 * their open shape), for authored files where an unknown key is a typo.
 */
export function toClosedSchema(schema: TSchema): TSchema {
  const copy = JSON.parse(JSON.stringify(schema)) as TSchema;
  _close(copy);
  return copy;
}

// --- Internal helpers ---

function _close(node: unknown): void {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) _close(item);
    return;
  }
  const obj = node as TObject & Record<string, unknown>;
  if (obj.type === "object" && obj.properties && obj.additionalProperties === undefined && !obj.patternProperties) {
    obj.additionalProperties = false;
  }
  for (const value of Object.values(obj)) _close(value);
}
