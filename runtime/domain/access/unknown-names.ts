/**
 * The problems for a vertical or node name the build does not know, each with the closest known
 * name when one is near ("travle" → "travel", "eu261-compensaton" → "eu261-compensation"), so an
 * agent or a person corrects a typo instead of guessing again.
 */

import { didYouMean } from "../../shared/did-you-mean.ts";
import { type ApiError, apiError } from "../../shared/errors.ts";
import type { Artifacts } from "../../state/releases/artifacts.ts";

type Build = Pick<Artifacts, "catalog" | "manifest">;

/** `vertical_unknown` for `slug`; `extra` adds the problem's other members (e.g. `errors`). */
export function unknownVertical(
  build: Build,
  slug: string,
  options: { orAll?: boolean; errors?: Array<{ pointer: string; message: string }> } = {},
): ApiError {
  const names = Object.keys(build.catalog.slugs);
  const shown = slug.slice(0, 64);
  return apiError("vertical_unknown", {
    detail: `"${shown}" is not a vertical${options.orAll ? " (or all)" : ""}.${didYouMean(shown, options.orAll ? [...names, "all"] : names)}`,
    ...(options.errors ? { errors: options.errors } : {}),
  });
}

/** `node_not_found` for `id` in the vertical (its canonical slug). */
export function unknownNode(build: Build, vertical: string, id: string): ApiError {
  const shown = id.slice(0, 100);
  return apiError("node_not_found", {
    detail: `No node "${shown}" in ${vertical}.${didYouMean(shown, Object.keys(build.manifest.verticals[vertical]?.nodes ?? {}))}`,
  });
}
