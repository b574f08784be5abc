/** `vkr serve`: the service in this process (runtime/start.ts), configured from the environment and flags; drains on SIGTERM/SIGINT. */

import { resolveRuntimeConfig } from "../../runtime/config.ts";
import { startService } from "../../runtime/start.ts";
import { defineCommand } from "../command-line.ts";
import { cliIo } from "../io.ts";
import { describeStateStore, resolveOperatorConfig } from "../operator-context.ts";
import { runOperation } from "../output.ts";

export default defineCommand({
  meta: { name: "serve" },
  args: {
    port: { type: "string", description: "Port (default PORT or 8787)" },
    host: { type: "string", description: "Interface (default HOST or 127.0.0.1)" },
    "data-dir": { type: "string", description: "State folder (default DATA_DIR or ./data)" },
    "dist-dir": { type: "string", description: "Build folder (default DIST_DIR or ./dist)" },
    json: { type: "boolean", description: "Announce the listening address as one JSON line", default: false },
  },
  run: ({ args }) =>
    runOperation(args.json, async () => {
      const base = resolveOperatorConfig(args);
      // Flags win over the environment; re-resolved so they are validated like any setting.
      const config =
        args.port || args.host
          ? resolveRuntimeConfig({
              ...cliIo().env,
              DATA_DIR: base.dataDir,
              DIST_DIR: base.distDir,
              ...(args.port ? { PORT: args.port } : {}),
              ...(args.host ? { HOST: args.host } : {}),
            })
          : base;
      const service = await startService(config);
      const started = {
        url: service.url,
        build_id: service.deps.build.current.buildId,
        store: service.deps.backend.kind,
        store_location: describeStateStore(config),
      };
      cliIo().stdout(
        args.json
          ? `${JSON.stringify(started)}\n`
          : `serving ${started.url} (build ${started.build_id} from ${config.distDir}, state store ${started.store_location})\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => void service.close().then(resolve, resolve);
        process.once("SIGTERM", stop);
        process.once("SIGINT", stop);
      });
    }),
});
