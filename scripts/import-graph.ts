/**
 * The repository's relative imports, read with a small scanner rather than the compiler: what
 * test/contract/layers.test.ts checks the layers with and what scripts/move-layers.ts rewrites.
 * The layers themselves are declared once, in runtime/import-layers.json.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, posix, relative, sep } from "node:path";

export interface Layer {
  readonly name: string;
  /** Where scripts/move-layers.ts puts the layer's paths: runtime/<folder>/ ("." leaves them at runtime/). */
  readonly folder: string;
  /** Repository paths, folders or files; a file belongs to the layer of its longest declared prefix. */
  readonly paths: readonly string[];
}

export interface LayerDeclaration {
  readonly layers: readonly Layer[];
  /** The one layer build/ may import. */
  readonly buildImports: string;
}

export const LAYERS_FILE = "runtime/import-layers.json";

export function readLayers(root: string): LayerDeclaration {
  return JSON.parse(readFileSync(join(root, LAYERS_FILE), "utf8")) as LayerDeclaration;
}

/** The layer of a repository path, by its longest declared prefix or its layer folder; undefined when undeclared. */
export function layerOf(path: string, declaration: LayerDeclaration): { layer: Layer; rank: number } | undefined {
  let best: { layer: Layer; rank: number; length: number } | undefined;
  declaration.layers.forEach((layer, rank) => {
    // A layer's own folder holds it too, so a folder added there later needs no declaration.
    const home = layer.folder === "." ? [] : [`runtime/${layer.folder}`];
    for (const p of [...home, ...layer.paths]) {
      if ((path === p || path.startsWith(`${p}/`)) && (!best || p.length > best.length)) best = { layer, rank, length: p.length };
    }
  });
  return best && { layer: best.layer, rank: best.rank };
}

export interface ImportRef {
  readonly specifier: string;
  /** `import type`/`export type`, or every named binding marked `type`: erased, so no run-time edge. */
  readonly typeOnly: boolean;
  /** Offset of the specifier's first character (inside the quotes) in the file's text. */
  readonly start: number;
}

const STATIC_RE = /(?:^|\n)[ \t]*(import|export)\s+(type\s+)?([^;"']*?)\s*from\s*(["'])([^"']+)\4/g;
const BARE_RE = /(?:^|\n)[ \t]*import\s*(["'])([^"']+)\1/g;
const DYNAMIC_RE = /\bimport\(\s*(["'])([^"']+)\1\s*\)/g;

/** Every import and re-export specifier of a module's text, static and dynamic. */
export function importsOf(text: string): ImportRef[] {
  const refs: ImportRef[] = [];
  for (const m of text.matchAll(STATIC_RE)) {
    const clause = (m[3] ?? "").trim();
    const named = /^\{([^}]*)\}$/s.exec(clause);
    const names = named
      ? named[1]!
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
    const typeOnly = Boolean(m[2]) || (names.length > 0 && names.every((n) => n.startsWith("type ")));
    refs.push({ specifier: m[5]!, typeOnly, start: m.index + m[0].length - 1 - m[5]!.length });
  }
  for (const re of [BARE_RE, DYNAMIC_RE]) {
    for (const m of text.matchAll(re)) {
      const end = m.index + m[0].lastIndexOf(m[2]!) + m[2]!.length;
      refs.push({ specifier: m[2]!, typeOnly: false, start: end - m[2]!.length });
    }
  }
  return refs;
}

/** The repository path a relative specifier of `from` names (posix separators). */
export function resolveSpecifier(from: string, specifier: string): string {
  return posix.normalize(posix.join(posix.dirname(from), specifier));
}

const SOURCE_RE = /\.(ts|mts|mjs|js)$/;

/** Source files under the given folders, as repository paths, skipping node_modules and dist. */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE_RE.test(entry.name)) out.push(relative(root, path).split(sep).join("/"));
    }
  };
  for (const folder of folders) walk(join(root, folder));
  return out.sort();
}
