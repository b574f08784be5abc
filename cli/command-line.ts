/**
 * The one argument parser of `vkr`. Commands are declared in citty's shape (meta, args,
 * subcommands) and citty renders their usage, but the command line is parsed once, here, with
 * node:util `parseArgs({ strict: true })`, and the values it returns are the ones the command runs
 * with. citty's own parser ignores unknown flags (`--lable x` silently listed every key), and a
 * strict check beside it meant two parsers that could read one argv two ways. An unknown command
 * or flag, a flag without its value, an extra argument or a missing required one is a usage error
 * (exit 1) naming the command and, when one is close, the flag or command meant.
 *
 * The top-level commands are listed with their descriptions and loaded only when they run, so
 * `vkr --help` and `vkr status --url …` load neither the content build nor the server, and citty
 * (its usage renderer, cli/usage.ts) is loaded for `--help` only.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import type { ArgsDef, CommandDef } from "citty";
import { suggestClosest } from "../runtime/shared/did-you-mean.ts";
import { EXIT } from "./exit-codes.ts";
import { cliIo } from "./io.ts";

/**
 * citty's `defineCommand` (it returns its argument, typed), declared here so that running a command
 * never loads citty and consola: only `--help` does, for the usage text.
 */
export function defineCommand<T extends ArgsDef = ArgsDef>(def: CommandDef<T>): CommandDef<T> {
  return def;
}

/** A top-level command: its description (for `vkr --help`) and how to load it. */
export interface LazyCommand {
  description: string;
  load(): Promise<CommandDef<ArgsDef>>;
}

/** A command loaded when it runs; each is typed by its own args, which the parse checks it against. */
export function lazyCommand<T extends ArgsDef>(description: string, load: () => Promise<CommandDef<T>>): LazyCommand {
  return { description, load: load as unknown as () => Promise<CommandDef<ArgsDef>> };
}

export interface CommandLine {
  name: string;
  description: string;
  commands: Record<string, LazyCommand>;
}

/** The command an argv names, with its full name (`vkr keys create`). */
interface ResolvedCommand {
  command: CommandDef<ArgsDef>;
  name: string;
  /** argv after the command's name. */
  rest: string[];
}

class UsageError extends Error {
  /** The command whose `--help` explains the fix. */
  readonly commandName: string;
  constructor(commandName: string, message: string) {
    super(message);
    this.commandName = commandName;
  }
}

const HELP_FLAGS = new Set(["--help", "-h"]);

/** Runs the command `argv` names: its usage on `--help`, a usage error (exit 1), or its `run`. */
export async function runCommandLine(cli: CommandLine, argv: string[]): Promise<void> {
  const resolved = await _resolveCommand(cli, argv);
  if (argv.some((a) => HELP_FLAGS.has(a))) {
    cliIo().stdout(`${await _usage(resolved)}\n`);
    return;
  }
  let args: Record<string, unknown>;
  try {
    args = await _parse(resolved);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (argv.includes("--json")) cliIo().stdout(`${JSON.stringify({ error: { code: "usage", message: error.message } })}\n`);
    cliIo().stderr(`${error.commandName}: ${error.message}\nRun "${error.commandName} --help" for its usage.\n`);
    cliIo().exitCode = EXIT.failure;
    return;
  }
  const { command, rest } = resolved;
  // Every command's `run` is typed by its own args; the values above were checked against them.
  await command.run?.({ rawArgs: rest, args: args as never, cmd: command });
}

// --- Internal helpers ---

/** Follows subcommands the way citty does (the first argument not starting with `-`). */
async function _resolveCommand(cli: CommandLine, argv: string[]): Promise<ResolvedCommand> {
  let command: CommandDef<ArgsDef> = _rootCommand(cli);
  let name = cli.name;
  let rest = argv;
  for (let depth = 0; ; depth++) {
    const subCommands = (await _value(command.subCommands)) as Record<string, CommandDef<ArgsDef>> | undefined;
    if (!subCommands || Object.keys(subCommands).length === 0) return { command, name, rest };
    const at = rest.findIndex((arg) => !arg.startsWith("-"));
    if (at < 0) return { command, name, rest };
    const word = rest[at]!;
    if (!Object.hasOwn(subCommands, word)) return { command, name, rest };
    command = depth === 0 ? await _loadTopLevel(cli, word) : ((await _value(subCommands[word])) as CommandDef<ArgsDef>);
    name = `${name} ${word}`;
    rest = [...rest.slice(0, at), ...rest.slice(at + 1)];
  }
}

/** The root as citty renders it: each command by its listed description, none of them loaded. */
function _rootCommand(cli: CommandLine): CommandDef<ArgsDef> {
  const subCommands: Record<string, CommandDef<ArgsDef>> = Object.create(null);
  for (const [name, { description }] of Object.entries(cli.commands)) subCommands[name] = defineCommand({ meta: { name, description } });
  return defineCommand({ meta: { name: cli.name, description: cli.description }, subCommands });
}

/** A top-level command, described as the list describes it (the one place its description is written). */
async function _loadTopLevel(cli: CommandLine, word: string): Promise<CommandDef<ArgsDef>> {
  const { description, load } = cli.commands[word]!;
  const command = await load();
  return { ...command, meta: { ...(await _value(command.meta)), name: word, description } };
}

/** The argv's values by arg name, with defaults, or a UsageError when it does not fit the command. */
async function _parse({ command, name, rest }: ResolvedCommand): Promise<Record<string, unknown>> {
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
  const defs = ((await _value(command.args)) ?? {}) as ArgsDef;
  const options: NonNullable<ParseArgsConfig["options"]> = {};
  const positionals: Array<{ name: string; required: boolean; default: unknown }> = [];
  for (const [argName, def] of Object.entries(defs)) {
    if (def.type === "positional") {
      positionals.push({ name: argName, required: def.required !== false && def.default === undefined, default: def.default });
    } else options[argName] = { type: def.type === "boolean" ? "boolean" : "string" };
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
  // Null prototype: the names come from the command's declaration, the values from the command line.
  const args: Record<string, unknown> = Object.create(null);
  args._ = parsed.positionals;
  for (const [i, p] of positionals.entries()) {
    const value = parsed.positionals[i];
    if (p.required && value === undefined) throw new UsageError(name, `the ${p.name.toUpperCase()} argument is missing.`);
    args[p.name] = value ?? p.default;
  }
  for (const [argName, def] of Object.entries(defs)) {
    if (def.type === "positional") continue;
    const value = parsed.values[argName];
    if (def.required && def.default === undefined && value === undefined) {
      throw new UsageError(name, `--${argName} is required (${def.description ?? "see --help"}).`);
    }
    args[argName] = value ?? def.default;
  }
  return args;
}

/** citty's usage text, headed by the whole command name ("vkr keys create", not "keys create"). */
async function _usage({ command, name }: ResolvedCommand): Promise<string> {
  const parent = name.split(" ").slice(0, -1).join(" ");
  const { renderUsage } = await import("./usage.ts");
  const usage = await renderUsage(command, parent ? defineCommand({ meta: { name: parent } }) : undefined);
  // citty marks code with backticks for its own colouring; plain text reads better in a terminal and a pipe.
  return usage.replace(/`/g, "");
}

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

async function _value<T>(value: T | (() => T | Promise<T>) | Promise<T> | undefined): Promise<T | undefined> {
  return typeof value === "function" ? (value as () => T | Promise<T>)() : value;
}
