/**
 * `content/<vertical>/_review.yaml`: one review record per node, the only place a node's verdict
 * lives. The summary of the vertical's `REVIEW.md` is generated from it (`npm run review:md`) and
 * the build checks the two agree (build/stages/review-records.ts).
 */
import { type Static, Type } from "@sinclair/typebox";
import { SLUG_RE } from "../../runtime/shared/schema/catalog.ts";

const Day = Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "a date: write YYYY-MM-DD" });

export const REVIEW_STATUSES = ["unreviewed", "confirmed", "corrected", "open"] as const;

export const ReviewQuestionSchema = Type.Object(
  {
    /** The day the question was raised; it is stale once older than the node's review interval. */
    opened: Day,
    text: Type.String({ minLength: 10 }),
    /** The day it was settled, with how and on which source. */
    closed: Type.Optional(Day),
    resolution: Type.Optional(Type.String({ minLength: 10 })),
  },
  { additionalProperties: false },
);
export type ReviewQuestion = Static<typeof ReviewQuestionSchema>;

export const ReviewRecordSchema = Type.Object(
  {
    /**
     * unreviewed: written, not yet checked by a second reviewer (`npm run new` records this);
     * confirmed: checked, nothing wrong; corrected: defects found and fixed; open: a known defect not yet fixed.
     */
    status: Type.Union(REVIEW_STATUSES.map((s) => Type.Literal(s))),
    /** Which review pass gave the verdict, e.g. "second review". The date is the node's `reviewed`. */
    pass: Type.String({ minLength: 3 }),
    questions: Type.Optional(Type.Array(ReviewQuestionSchema)),
  },
  { additionalProperties: false },
);
export type ReviewRecord = Static<typeof ReviewRecordSchema>;

export const ReviewFileSchema = Type.Record(Type.String({ pattern: SLUG_RE }), ReviewRecordSchema);
export type ReviewFile = Static<typeof ReviewFileSchema>;
