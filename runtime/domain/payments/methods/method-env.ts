/**
 * What a payment method's environment block is, so that each method declares its variables and
 * parses them in its own folder (`<id>/<id>-env.ts`) while `runtime/config.ts` stays the one
 * reader of the environment: config loops over the blocks `method-ids.ts` lists, refuses a block
 * set only in part, and hands each `parse` a reader. Types only: the blocks must stay importable by
 * config and the schemas without pulling in anything that runs.
 */

/** How a block reads its variables; config supplies it, with config's own checks and errors. */
export interface EnvReader {
  /** The variable's value; undefined when unset or empty. */
  text(name: string): string | undefined;
  /** An http(s) URL; undefined when unset or empty; anything else refuses to start. */
  httpUrl(name: string): URL | undefined;
  /** Refuses to start with this message (a `ConfigError`). */
  refuse(message: string): never;
}

/**
 * A method's variables and how they become its typed config. `required` lists what the method
 * needs, each entry a list of alternatives (any one will do); `optional` what only makes sense with
 * it. Config refuses to start when some are set but a required one is missing, naming `feature`.
 */
export interface MethodEnvBlock<C> {
  feature: string;
  required: readonly (readonly string[])[];
  optional: readonly string[];
  /** The method's config, or undefined when this deployment does not configure it. */
  parse(read: EnvReader): C | undefined;
}

/** The config a block parses to. */
export type EnvConfigOf<B> = B extends MethodEnvBlock<infer C> ? C : never;
