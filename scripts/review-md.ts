/** `npm run review:md`: rewrites the summary block of each vertical's REVIEW.md from its `_review.yaml`. */
import { resolveBuildConfig } from "../build/config.ts";
import { loadContent } from "../build/stages/load.ts";
import { writeReviewDocs } from "../build/stages/review-records.ts";

const written = writeReviewDocs(loadContent(resolveBuildConfig({})));
process.stdout.write(
  written.length
    ? `rewrote ${written.map((p) => p.replace(`${process.cwd()}/`, "")).join(", ")}\n`
    : "REVIEW.md summaries already match the records\n",
);
