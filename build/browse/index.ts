/**
 * The browse site stage: reads a finished build's `<outDir>/data` and writes `<outDir>/browse`
 * (HTML pages, SVG graphs, llms.txt). It runs after the data is published, reads only artifacts
 * (never content/), and swaps the whole folder in at once so the runtime never sees half a site.
 *
 * Layout: browse/home.html, browse/index.html, browse/<slug>/index.html,
 * browse/<slug>/nodes/<id>.html (full) and <id>.locked.html (index layer only), their `.md` twins,
 * browse/key.html (the key form), browse/search.html and browse/error.html (templates), browse/llms.txt, browse/llms-full.txt, browse/manifest.json ({ build_id }),
 * and browse/docs/<page>.html (the project's README and docs/, render-docs.ts).
 */
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { IndexGraph, Manifest, NodeResponse } from "../../runtime/shared/schema/artifacts.ts";
import type { Catalog } from "../../runtime/shared/schema/catalog.ts";
import { renderDocPages } from "./render-docs.ts";
import { renderErrorTemplate, renderKeyPage, renderSearchTemplate } from "./render-forms.ts";
import { renderHome } from "./render-home.ts";
import { type LlmsVertical, renderLlmsFullTxt, renderLlmsTxt } from "./render-llms.ts";
import { renderNodeMarkdown } from "./render-node-md.ts";
import { type PageContext, renderNodePage, renderVerticalList, renderVerticalPage } from "./render-pages.ts";

export interface BrowseSiteResult {
  pages: number;
  dir: string;
}

/** @example await writeBrowseSite("dist") */
export async function writeBrowseSite(outDir: string): Promise<BrowseSiteResult> {
  const dataDir = join(outDir, "data");
  const readJson = async <T>(rel: string): Promise<T> => JSON.parse(await readFile(join(dataDir, rel), "utf8")) as T;
  const manifest = await readJson<Manifest>("manifest.json");
  const catalog = await readJson<Catalog>("catalog.json");
  const ctx: PageContext = { apiVersion: manifest.api_version, buildId: manifest.build_id };
  const files = new Map<string, string>();

  // 1. Site-wide pages.
  files.set("home.html", renderHome(ctx, catalog.verticals));
  files.set("index.html", renderVerticalList(ctx, catalog.verticals));
  files.set("key.html", renderKeyPage(ctx));
  files.set("search.html", renderSearchTemplate(ctx, catalog.verticals));
  files.set("error.html", renderErrorTemplate(ctx));
  for (const [rel, html] of await renderDocPages(ctx)) files.set(rel, html);

  // 2. Each vertical with content: its graph page, both variants of every node page.
  const llms: LlmsVertical[] = [];
  for (const vertical of catalog.verticals) {
    if (!manifest.verticals[vertical.slug]) continue;
    const index = await readJson<IndexGraph>(`verticals/${vertical.slug}/index.json`);
    files.set(`${vertical.slug}/index.html`, renderVerticalPage(ctx, vertical, index));
    const forLlms = new Map<string, NodeResponse>();
    for (const entry of index.nodes) {
      const base = `verticals/${vertical.slug}/nodes/${entry.id}`;
      const [full, lockedNode] = await Promise.all([readJson<NodeResponse>(`${base}.json`), readJson<NodeResponse>(`${base}.locked.json`)]);
      forLlms.set(entry.id, vertical.fully_open ? full : lockedNode);
      files.set(`${vertical.slug}/nodes/${entry.id}.html`, renderNodePage(ctx, vertical, full));
      files.set(`${vertical.slug}/nodes/${entry.id}.locked.html`, renderNodePage(ctx, vertical, lockedNode));
      files.set(`${vertical.slug}/nodes/${entry.id}.md`, renderNodeMarkdown(vertical, full));
      files.set(`${vertical.slug}/nodes/${entry.id}.locked.md`, renderNodeMarkdown(vertical, lockedNode));
    }
    llms.push({ vertical, index, nodes: forLlms });
  }

  // 3. llms.txt: the free index layer; llms-full.txt adds the content of the fully open verticals.
  files.set("llms.txt", renderLlmsTxt(llms));
  files.set("llms-full.txt", renderLlmsFullTxt(llms));
  files.set("manifest.json", `${JSON.stringify({ build_id: manifest.build_id, api_version: manifest.api_version })}\n`);

  // 4. Write beside, then swap: the old site stays whole until the new one is complete.
  const target = join(outDir, "browse");
  const staging = join(outDir, `.browse-${process.pid}-${Date.now()}`);
  for (const [rel, text] of files) {
    await mkdir(join(staging, rel, ".."), { recursive: true });
    await writeFile(join(staging, rel), text);
  }
  const retired = `${staging}-old`;
  await rename(target, retired).catch(() => undefined);
  await rename(staging, target);
  await rm(retired, { recursive: true, force: true });
  return { pages: [...files.keys()].filter((f) => f.endsWith(".html")).length, dir: target };
}
