/**
 * What an operator command works on: the runtime config from the environment (plus `--data-dir`
 * / `--dist-dir`), the build in `dist/`, and the same state store and key store the server opens.
 */
import { type RuntimeConfig, resolveRuntimeConfig } from "../runtime/config.ts";
import { type AuditContext, cliActor } from "../runtime/domain/audit/audit-log.ts";
import type { PurchaseDeps } from "../runtime/domain/payments/purchases/purchase-flow.ts";
import { createLogger } from "../runtime/shared/logger.ts";
import type { Limits } from "../runtime/shared/schema/catalog.ts";
import { type Artifacts, loadArtifacts } from "../runtime/state/releases/artifacts.ts";
import { createBuildRef } from "../runtime/state/releases/build-ref.ts";
import type { StateBackend } from "../runtime/state/storage/backend.ts";
import { createKeysStore, type KeysStore } from "../runtime/state/storage/keys-store.ts";
import { openBackend } from "../runtime/state/storage/open-backend.ts";
import { cliIo } from "./io.ts";
import { runOperation } from "./output.ts";

export interface OperatorContext {
  config: RuntimeConfig;
  build: Artifacts;
  backend: StateBackend;
  /** No read cache: the CLI must see the store as it is now. */
  keys: KeysStore;
  limits: Limits;
  /** What key issuance and reconciliation run on, the same steps the server takes. */
  purchaseDeps: PurchaseDeps;
  /** The operator's actions go to the audit trail as `cli:<os user>`. */
  audit: AuditContext;
  now(): number;
  close(): Promise<void>;
}

export function resolveOperatorConfig(args: { "data-dir"?: string | undefined; "dist-dir"?: string | undefined }): RuntimeConfig {
  return resolveRuntimeConfig({
    ...cliIo().env,
    ...(args["data-dir"] ? { DATA_DIR: args["data-dir"] } : {}),
    ...(args["dist-dir"] ? { DIST_DIR: args["dist-dir"] } : {}),
  });
}

export async function openOperatorContext(config: RuntimeConfig): Promise<OperatorContext> {
  const build = await loadArtifacts(config.distDir);
  const backend = await openBackend(config);
  const keys = createKeysStore(backend, { cacheMs: 0 });
  const buildRef = createBuildRef(build, config.retrievalLimits);
  return {
    config,
    build,
    backend,
    keys,
    purchaseDeps: {
      backend,
      keys,
      build: buildRef,
      config,
      logger: createLogger(config.logLevel === "silent" ? "silent" : "warn", (line) => cliIo().stderr(`${line}\n`)),
    },
    limits: buildRef.limits,
    audit: { backend, actor: cliActor() },
    now: Date.now,
    close: () => backend.close(),
  };
}

/**
 * Where the state lives, for the line every store-touching command prints first (to stderr, so
 * `--json` output stays one document): the SQLite folder or the Redis host, never a password.
 */
export function describeStateStore(config: Pick<RuntimeConfig, "redisUrl" | "redisPrefix" | "dataDir">): string {
  if (!config.redisUrl) return `sqlite in ${config.dataDir}`;
  try {
    const url = new URL(config.redisUrl);
    return `redis at ${url.host}${url.pathname.length > 1 ? url.pathname : ""} (prefix ${config.redisPrefix})`;
  } catch {
    return `redis (prefix ${config.redisPrefix})`;
  }
}

/** Opens the context, says which store it uses, runs `body`, closes; failures become exit codes. */
export async function withOperatorContext(
  args: { json: boolean; "data-dir"?: string; "dist-dir"?: string },
  body: (ctx: OperatorContext) => Promise<number | void>,
): Promise<void> {
  await runOperation(args.json, async () => {
    const config = resolveOperatorConfig(args);
    cliIo().stderr(`vkr: state store ${describeStateStore(config)}; build ${config.distDir}\n`);
    const ctx = await openOperatorContext(config);
    try {
      return await body(ctx);
    } finally {
      await ctx.close();
    }
  });
}
