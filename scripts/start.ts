/**
 * `npm start`: rebuilds the content when dist/ is missing or older than content/, bundles the
 * runtime when it is missing or older than runtime/, then runs the bundled server in this process
 * group (signals reach it directly).
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const newest = (dir: string): number => {
  if (!existsSync(dir)) return 0;
  let max = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return max;
};
const mtime = (file: string): number => (existsSync(file) ? statSync(file).mtimeMs : 0);
const tsx = (script: string) => execFileSync(process.execPath, ["--import", "tsx", script], { stdio: "inherit" });

if (mtime("dist/data/manifest.json") < newest("content")) tsx("build/cli.ts");
if (mtime("dist/server/index.mjs") < Math.max(newest("runtime"), mtime("build/bundle-server.ts"))) tsx("build/bundle-server.ts");

const child = spawn(process.execPath, ["--enable-source-maps", "dist/server/index.mjs"], { stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
