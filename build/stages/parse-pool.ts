/**
 * Parses many node files, spreading cache misses over worker threads when there are enough of
 * them to pay for the workers' start-up (remark is most of a cold build). The main thread parses
 * its own share meanwhile. Any worker failure falls back to parsing that share on the main thread,
 * so the result never depends on whether threads were available.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { BuildCache } from "../cache.ts";
import { sha256 } from "../digest.ts";
import type { SourceFile } from "./load.ts";
import { type ParsedFile, type ParsedNode, type ParsedNodeData, parseRaw, toParsedNode } from "./parse.ts";

/** Below this many files to parse, starting workers costs more than it saves. */
const PARALLEL_MIN_FILES = 800;
const MAX_WORKERS = 3;

/** Parses every file (with token counts), reusing cached results by file digest. */
export async function parseNodeSources(files: readonly SourceFile[], cache?: BuildCache): Promise<ParsedFile[]> {
  const digests = files.map((f) => sha256(f.raw));
  const parsed: Array<ParsedNode | undefined> = digests.map((d) => cache?.parsed.get(d));
  const misses = parsed.flatMap((p, i) => (p ? [] : [i]));

  const workers = misses.length >= PARALLEL_MIN_FILES ? Math.min(availableParallelism() - 1, MAX_WORKERS) : 0;
  // Each worker and the main thread take an equal share; workers get theirs first.
  const share = Math.ceil(misses.length / (workers + 1));
  const batches = Array.from({ length: workers }, (_, w) => misses.slice(w * share, (w + 1) * share));
  const put = (i: number, data: ParsedNodeData) => {
    const node = toParsedNode(data);
    parsed[i] = node;
    cache?.parsed.set(node.digest, node);
  };
  const pending = batches.map((batch) =>
    _parseInWorker(
      batch.map((i) => files[i]!.raw),
      batch.map((i) => digests[i]!),
      (k, data) => put(batch[k]!, data),
    ),
  );
  for (const i of misses.slice(workers * share)) put(i, parseRaw(files[i]!.raw, digests[i]!, true));

  const results = await Promise.allSettled(pending);
  results.forEach((result, w) => {
    // A failed worker may have delivered part of its batch; parse whatever is still missing.
    if (result.status === "rejected") for (const i of batches[w]!) if (!parsed[i]) put(i, parseRaw(files[i]!.raw, digests[i]!, true));
  });
  return files.map((source, i) => ({ source, parsed: parsed[i]! }));
}

// --- Internal helpers ---

function _parseInWorker(raws: string[], digests: string[], onResult: (index: number, data: ParsedNodeData) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(_bootstrap(), { eval: true, workerData: { raws, digests, tokens: true } });
    worker.on("message", (message: { start: number; chunk: ParsedNodeData[] } | { done: true }) => {
      if ("done" in message) {
        resolve();
        void worker.terminate();
      } else message.chunk.forEach((data, k) => onResult(message.start + k, data));
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`parse worker exited with code ${code}`)));
  });
}

/**
 * Worker threads do not inherit the main thread's tsx loader hooks, so when the build runs from
 * TypeScript sources the worker registers tsx before importing its module. If that fails (no tsx),
 * the worker errors and its share is parsed on the main thread.
 */
function _bootstrap(): string {
  const url = JSON.stringify(new URL("./parse-worker.ts", import.meta.url).href);
  if (!import.meta.url.endsWith(".ts")) return `import(${url})`;
  const tsx = JSON.stringify(import.meta.resolve("tsx/esm/api"));
  return `import(${tsx}).then((m) => m.register()).then(() => import(${url}))`;
}
