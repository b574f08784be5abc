/**
 * `vkr backup <file>` and `vkr restore <file>`: a consistent copy of the embedded store taken
 * while the server serves, and its restore into a folder no server is using
 * (runtime/state/storage/sqlite-backup.ts). On Redis the state is Redis's own to back up (RDB/AOF,
 * docs/operations.md), so both commands refuse and say so.
 */
import { resolve } from "node:path";
import type { RuntimeConfig } from "../../runtime/config.ts";
import { BackupRefusal, backupState, restoreState } from "../../runtime/state/storage/sqlite-backup.ts";
import { defineCommand } from "../command-line.ts";
import { EXIT, OperatorError } from "../exit-codes.ts";
import { cliIo } from "../io.ts";
import { describeStateStore, resolveOperatorConfig } from "../operator-context.ts";
import { printResult, runOperation } from "../output.ts";

const ARGS = {
  file: { type: "positional", required: true, description: "The backup file" },
  "data-dir": { type: "string", description: "State folder (default: DATA_DIR or ./data)" },
  json: { type: "boolean", description: "Print JSON instead of text", default: false },
} as const;

export const backup = defineCommand({
  meta: { name: "backup" },
  args: ARGS,
  run: ({ args }) =>
    runOperation(args.json, async () => {
      const config = _sqliteConfig(args);
      const file = resolve(args.file);
      const manifest = await backupState(config.dataDir, file, Date.now()).catch(_refusal);
      printResult(
        args.json,
        { file, ...manifest },
        () => `backed up ${config.dataDir} to ${file}: layout ${manifest.layout}, ${manifest.bytes} bytes, sha256 ${manifest.sha256}`,
      );
    }),
});

export const restore = defineCommand({
  meta: { name: "restore" },
  args: {
    ...ARGS,
    replace: { type: "boolean", description: "Move a state already in the folder aside (into replaced-<time>/) first", default: false },
  },
  run: ({ args }) =>
    runOperation(args.json, async () => {
      const config = _sqliteConfig(args);
      const file = resolve(args.file);
      const result = await restoreState(file, config.dataDir, { replace: args.replace, now: Date.now() }).catch(_refusal);
      printResult(
        args.json,
        { file, data_dir: config.dataDir, ...result },
        () =>
          `restored ${file} (taken ${result.manifest.created_at}, layout ${result.manifest.layout}) into ${config.dataDir}` +
          (result.layout !== result.manifest.layout ? `, upgraded to layout ${result.layout}` : "") +
          (result.replaced ? `; the state there before is in ${result.replaced}` : ""),
      );
    }),
});

// --- Internal helpers ---

function _sqliteConfig(args: { "data-dir"?: string | undefined }): RuntimeConfig {
  const config = resolveOperatorConfig(args);
  cliIo().stderr(`vkr: state store ${describeStateStore(config)}\n`);
  if (config.redisUrl)
    throw new OperatorError(
      "redis_backup",
      "the state lives in Redis: back it up with Redis's own persistence (RDB snapshots or the AOF; see docs/operations.md, Backups)",
      EXIT.refused,
    );
  return config;
}

function _refusal(error: unknown): never {
  if (error instanceof BackupRefusal)
    throw new OperatorError(error.reason, error.message, error.reason === "not_found" ? EXIT.notFound : EXIT.refused);
  throw error;
}
