/**
 * Moves runtime/ into its layer folders as runtime/import-layers.json declares them
 * (docs/architecture.md#layers), and rewrites every path that names a moved file: relative
 * specifiers and links (`../runtime/…`, `./x.ts`) resolved from the file they are written in, and
 * repository paths (`runtime/edges/routes/x.ts`) in code, docs and configs. It moves whole folders with
 * `git mv`, so files added since the declaration was written move along. Run it again on a tree
 * already in layer folders and it moves nothing; a runtime path the declaration does not name makes
 * it refuse before touching anything.
 *
 *   npx tsx scripts/move-layers.ts          # move and rewrite
 *   npx tsx scripts/move-layers.ts --dry    # print what it would move
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { LAYERS_FILE, readLayers } from "./import-graph.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TEXT_RE = /\.(ts|mts|mjs|js|cjs|json|md|ya?ml|sh|toml|txt)$|(^|\/)(Dockerfile|\.gitignore|\.dockerignore)$/;
const DECLARATION_FILE = LAYERS_FILE;

interface Move {
  readonly from: string;
  readonly to: string;
}

function git(...args: string[]): string {
  return execFileSync("git", args, { cwd: ROOT, encoding: "utf8" });
}

/** What to move: each declared path not yet in its layer folder, the named files first. */
function plannedMoves(): Move[] {
  const declaration = readLayers(ROOT);
  const moveTo = (declaration as { moveTo?: Record<string, string> }).moveTo ?? {};
  const moves: Move[] = [];
  for (const [from, to] of Object.entries(moveTo)) if (from !== to) moves.push({ from, to });
  for (const layer of declaration.layers) {
    if (layer.folder === ".") continue;
    const home = `runtime/${layer.folder}`;
    for (const path of layer.paths) {
      if (path === home || path.startsWith(`${home}/`) || Object.hasOwn(moveTo, path)) continue;
      moves.push({ from: path, to: `${home}/${basename(path)}` });
    }
  }
  // Already moved (by an earlier run whose rewrite of the declaration was lost): nothing to do for it.
  const pending = moves.filter((m) => existsSync(join(ROOT, m.from)) || !existsSync(join(ROOT, m.to)));
  const missing = pending.filter((m) => !existsSync(join(ROOT, m.from)));
  if (missing.length > 0) fail(`declared but not found: ${missing.map((m) => m.from).join(", ")}`);
  const taken = pending.filter((m) => existsSync(join(ROOT, m.to)));
  if (taken.length > 0) fail(`the destination exists already: ${taken.map((m) => `${m.from} → ${m.to}`).join(", ")}`);
  return pending;
}

/** Every runtime path outside the declared ones and the layer folders: the move would leave it behind. */
function undeclared(moves: readonly Move[]): string[] {
  const declaration = readLayers(ROOT);
  const declared = declaration.layers.flatMap((l) => l.paths);
  const homes = declaration.layers.filter((l) => l.folder !== ".").map((l) => `runtime/${l.folder}`);
  const covered = (p: string) => [...declared, ...moves.map((m) => m.from)].some((d) => p === d || p.startsWith(`${d}/`));
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (path === DECLARATION_FILE || covered(path)) continue;
      if (entry.isDirectory() && (homes.includes(path) || declared.some((d) => d.startsWith(`${path}/`)))) walk(path);
      else out.push(path);
    }
  };
  walk("runtime");
  return out;
}

function mapperOf(moves: readonly Move[]): (path: string) => string {
  const ordered = [...moves].sort((a, b) => b.from.length - a.from.length);
  return (path) => {
    for (const m of ordered) {
      if (path === m.from) return m.to;
      if (path.startsWith(`${m.from}/`)) return m.to + path.slice(m.from.length);
    }
    return path;
  };
}

function isMoving(path: string, moves: readonly Move[]): boolean {
  return moves.some((m) => path === m.from || path.startsWith(`${m.from}/`));
}

// `./x`, `../x/y.ts`, `../..`: a relative path in code, a config or a Markdown link.
const RELATIVE_RE = /(?<![\w./@-])(\.\.?(?:\/[\w.@-]*)*\/?)(?=[\s"'`)\]#?,;:]|$)/g;
// `runtime/edges/routes/x.ts`: a path from the repository root, not the tail of a relative one.
const ROOTED_RE = /(?<![\w./@-])runtime\/[\w.@/-]*[\w@-]\/?/g;

/** The text of a file with every path to a moved file rewritten for where both end up. */
function rewrite(file: string, text: string, moves: readonly Move[], map: (p: string) => string): string {
  const newFile = map(file);
  const fileMoves = newFile !== file;
  let out = text.replace(RELATIVE_RE, (token) => {
    if (token === "." || token === "./") return token;
    const target = posix.normalize(posix.join(posix.dirname(file), token));
    if (target.startsWith("../") || target === "..") return token;
    const clean = target.replace(/\/$/, "");
    if (!fileMoves && !isMoving(clean, moves)) return token;
    if (!existsSync(join(ROOT, clean)) && !isMoving(clean, moves)) return token;
    let next = posix.relative(posix.dirname(newFile), map(clean)) || ".";
    if (!next.startsWith(".")) next = `./${next}`;
    return token.endsWith("/") && !next.endsWith("/") ? `${next}/` : next;
  });
  out = out.replace(ROOTED_RE, (token) => {
    const trailing = token.endsWith("/") ? "/" : "";
    const mapped = map(token.replace(/\/$/, ""));
    return mapped === token.replace(/\/$/, "") ? token : mapped + trailing;
  });
  return out;
}

function fail(message: string): never {
  console.error(`move-layers: ${message}`);
  process.exit(1);
}

function main(): void {
  const dry = process.argv.includes("--dry");
  const moves = plannedMoves();
  const left = undeclared(moves);
  if (left.length > 0) fail(`not declared in ${DECLARATION_FILE} (add each to a layer, then run again): ${left.join(", ")}`);
  if (moves.length === 0) {
    console.log("move-layers: runtime/ is already in its layer folders; nothing to move.");
    return;
  }
  for (const m of moves) console.log(`${m.from} → ${m.to}`);
  if (dry) return;
  if (git("status", "--porcelain", "--untracked-files=no").trim() !== "")
    fail("the working tree has uncommitted changes: commit them first, so the move is a commit of its own.");

  const map = mapperOf(moves);
  const texts = git("ls-files", "-co", "--exclude-standard")
    .split("\n")
    .filter((f) => f && TEXT_RE.test(f) && !f.startsWith("content/") && f !== "package-lock.json" && existsSync(join(ROOT, f)));
  const rewritten = new Map<string, string>();
  for (const file of texts) {
    const text = readFileSync(join(ROOT, file), "utf8");
    const next = rewrite(file, text, moves, map);
    if (next !== text) rewritten.set(file, next);
  }
  // Named files leave their folders first, through a staging folder, and land after the folders
  // moved: a file's destination may be inside a folder that is still to move.
  const staging = "runtime/.move-layers";
  const files = moves.filter((m) => statSync(join(ROOT, m.from)).isFile());
  const folders = moves.filter((m) => !files.includes(m));
  const staged = files.map((m, i) => ({ ...m, via: `${staging}/${i}-${basename(m.from)}` }));
  const gitMv = (from: string, to: string) => {
    mkdirSync(join(ROOT, posix.dirname(to)), { recursive: true });
    git("mv", from, to);
  };
  for (const m of staged) gitMv(m.from, m.via);
  for (const m of folders) gitMv(m.from, m.to);
  for (const m of staged) gitMv(m.via, m.to);
  rmSync(join(ROOT, staging), { recursive: true, force: true });
  for (const [file, text] of rewritten) writeFileSync(join(ROOT, map(file)), text);
  // A longer specifier may push an import over the line width: the formatter wraps it as it would.
  const code = [...rewritten.keys()].map(map).filter((f) => /\.(ts|mts|mjs|js)$/.test(f));
  if (code.length > 0) execFileSync("npx", ["biome", "format", "--write", ...code], { cwd: ROOT, stdio: "ignore" });
  console.log(`move-layers: moved ${moves.length} paths, rewrote paths in ${rewritten.size} files.`);
}

main();
