/**
 * Strict command lines for `vkr`: before citty runs a command, the whole argv is checked against
 * the command's declared args with node:util `parseArgs({ strict: true })`. An unknown command
 * or flag, a flag without its value, an extra argument or a missing required one is a usage
 * error (exit 1) naming the command and, when one is close, the flag or command meant. citty
 * alone ignores unknown flags, so `--lable x` silently listed every key.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { ArgsDef, CommandDef } from "citty";
import { suggestClosest } from "../runtime/did-you-mean.ts";

/** The command an argv names, with its full name (`vkr keys create`). */
export interface ResolvedCommand {
  command: CommandDef<ArgsDef>;
  name: string;
  /** argv after the command's name. */
  rest: string[];
}

export class UsageError extends Error {
  /** The command whose `--help` explains the fix. */
  readonly commandName: string;
  constructor(commandName: string, message: string) {
    super(message);
    this.commandName = commandName;
  }
}

const HELP_FLAGS = new Set(["--help", "-h"]);

/** Follows subcommands the way citty does (the first argument not starting with `-`). */
export async function resolveCommand(root: CommandDef<ArgsDef>, argv: string[]): Promise<ResolvedCommand> {
  let command = root;
  let name = _metaName(await _value(root.meta)) ?? "vkr";
  let rest = argv;
  for (;;) {
    const subCommands = (await _value(command.subCommands)) as Record<string, CommandDef<ArgsDef>> | undefined;
    if (!subCommands || Object.keys(subCommands).length === 0) return { command, name, rest };
    const at = rest.findIndex((arg) => !arg.startsWith("-"));
    if (at < 0) return { command, name, rest };
    const next = subCommands[rest[at]!];
    if (!next || !Object.hasOwn(subCommands, rest[at]!)) return { command, name, rest };
    command = (await _value(next)) as CommandDef<ArgsDef>;
    name = `${name} ${rest[at]}`;
    rest = [...rest.slice(0, at), ...rest.slice(at + 1)];
  }
}

/** Throws a UsageError when `argv` does not fit the command it names; help requests always fit. */
export async function assertValidArgv(root: CommandDef<ArgsDef>, argv: string[]): Promise<ResolvedCommand> {
  const resolved = await resolveCommand(root, argv);
  if (argv.some((a) => HELP_FLAGS.has(a))) return resolved;
  const { command, name, rest } = resolved;
  const subCommands = (await _value(command.subCommands)) as Record<string, unknown> | undefined;
  if (subCommands && Object.keys(subCommands).length > 0) {
    const names = Object.keys(subCommands);
    const word = rest.find((arg) => !arg.startsWith("-"));
    if (word !== undefined) {
      const close = suggestClosest(word, names);
      throw new UsageError(
        name,
        `unknown command "${word}"${close ? `; did you mean "${name} ${close}"?` : "."} Commands: ${names.join(", ")}.`,
      );
    }
    if (!command.run) throw new UsageError(name, `which command? One of: ${names.join(", ")}.`);
  }
  const args = ((await _value(command.args)) ?? {}) as ArgsDef;
  const options: NonNullable<ParseArgsConfig["options"]> = {};
  const positionals: Array<{ name: string; required: boolean }> = [];
  for (const [argName, def] of Object.entries(args)) {
    if (def.type === "positional") positionals.push({ name: argName, required: def.required !== false && def.default === undefined });
    else options[argName] = { type: def.type === "boolean" ? "boolean" : "string" };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options, strict: true, allowPositionals: positionals.length > 0, allowNegative: true });
  } catch (error) {
    throw new UsageError(name, _describeParseError(error, Object.keys(options)));
  }
  if (parsed.positionals.length > positionals.length) {
    throw new UsageError(
      name,
      `unexpected argument "${parsed.positionals[positionals.length]}"${positionals.length ? "" : ` (${name} takes only --options)`}.`,
    );
  }
  for (const [i, p] of positionals.entries()) {
    if (p.required && parsed.positionals[i] === undefined) throw new UsageError(name, `the ${p.name.toUpperCase()} argument is missing.`);
  }
  for (const [argName, def] of Object.entries(args)) {
    if (def.type !== "positional" && def.required && def.default === undefined && parsed.values[argName] === undefined) {
      throw new UsageError(name, `--${argName} is required (${def.description ?? "see --help"}).`);
    }
  }
  return resolved;
}

// --- Internal helpers ---

function _describeParseError(error: unknown, known: string[]): string {
  const { code, message } = error as { code?: string; message?: string };
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const flag = /'(-{1,2}[^'=\s]+)/.exec(message ?? "")?.[1] ?? "?";
    const close = suggestClosest(flag.replace(/^-+(no-)?/, ""), known);
    return `unknown option ${flag}${close ? `; did you mean --${close}?` : ""}`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const flag = /'(--?[^'\s]+)/.exec(message ?? "")?.[1];
    return flag ? `${flag} needs a value, e.g. ${flag} value (a value starting with "-" goes as ${flag}=value).` : String(message);
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    const word = /'([^']*)'/.exec(message ?? "")?.[1] ?? "";
    return `unexpected argument "${word}" (this command takes only --options).`;
  }
  return String(message ?? error);
}

function _metaName(meta: unknown): string | undefined {
  return meta && typeof meta === "object" && "name" in meta && typeof meta.name === "string" ? meta.name : undefined;
}

async function _value<T>(value: T | (() => T | Promise<T>) | Promise<T> | undefined): Promise<T | undefined> {
  return typeof value === "function" ? (value as () => T | Promise<T>)() : value;
}
