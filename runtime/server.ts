/**
 * The server entry (bundled by esbuild into dist/server/index.mjs): config from the environment,
 * start, and drain on SIGTERM/SIGINT.
 */
import { ConfigError, resolveRuntimeConfig } from "./config.ts";
import { createLogger } from "./shared/logger.ts";
import { startService } from "./start.ts";

async function main(): Promise<void> {
  let config;
  try {
    config = resolveRuntimeConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`config error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const service = await startService(config);
  const logger = createLogger(config.logLevel);
  const stop = (signal: string) => {
    logger.info("shutting down", { signal });
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error("shutdown failed", { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
}

main().catch((error: unknown) => {
  // Some configuration can only be judged at start (the x402 facilitator's networks): same exit as above.
  if (error instanceof ConfigError) {
    process.stderr.write(`config error: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`fatal: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
