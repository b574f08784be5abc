/**
 * The build in service, swapped whole when a new release is loaded (watch-dist.ts,
 * watch-releases.ts), with what follows from it and the deployment: the retrieval limits in force,
 * the catalogue's with RETRIEVAL_LIMITS applied, worked out once per build rather than per request.
 */
import type { Limits } from "../../shared/schema/catalog.ts";
import type { Artifacts } from "./artifacts.ts";

export interface BuildRef {
  current: Artifacts;
  /** The limits in force for `current`: the catalogue's, with the configured overrides applied (what /api/status reports). */
  readonly limits: Limits;
  /** The limits in force for `build`: a request pins its build once and reads that build's limits, never the current ones. */
  limitsOf(build: Artifacts): Limits;
}

/**
 * `overrides`: the configured RETRIEVAL_LIMITS (`RuntimeConfig.retrievalLimits`, which names the
 * overridable ones); here any catalogue limit, as this layer only applies them.
 */
export function createBuildRef(initial: Artifacts, overrides: Partial<Limits>): BuildRef {
  let current = initial;
  let limits = _apply(initial, overrides);
  // A build swapped out while requests that pinned it are in flight keeps its own limits for them.
  const earlier = new WeakMap<Artifacts, Limits>();
  return {
    get current() {
      return current;
    },
    set current(next: Artifacts) {
      // Worked out before the swap, so no request sees the new build with the old limits.
      const nextLimits = _apply(next, overrides);
      earlier.set(current, limits);
      current = next;
      limits = nextLimits;
    },
    get limits() {
      return limits;
    },
    limitsOf(build) {
      if (build === current) return limits;
      let found = earlier.get(build);
      if (found === undefined) earlier.set(build, (found = _apply(build, overrides)));
      return found;
    },
  };
}

// --- Internal helpers ---

function _apply(build: Artifacts, overrides: Partial<Limits>): Limits {
  return Object.freeze({ ...build.catalog.limits, ...overrides });
}

/** The limits in force (`BuildRef.limits`): kept as a function for the call sites that take a part of the deps. */
export function limitsInForce(deps: { readonly build: BuildRef }): Limits {
  return deps.build.limits;
}
