/**
 * Worker thread body for `parse-pool.ts`: parses a batch of raw files and posts the plain data
 * back in chunks, so neither side holds a whole batch of results (peak memory at 10,000 nodes).
 * Nothing here but the pure `parseRaw`, so results equal main-thread parsing byte for byte.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type ParsedNodeData, parseRaw } from "./parse.ts";

const CHUNK = 200;
const { raws, digests, tokens } = workerData as { raws: string[]; digests: string[]; tokens: boolean };
for (let start = 0; start < raws.length; start += CHUNK) {
  const chunk: ParsedNodeData[] = [];
  for (let i = start; i < Math.min(start + CHUNK, raws.length); i++) chunk.push(parseRaw(raws[i]!, digests[i]!, tokens));
  parentPort!.postMessage({ start, chunk });
}
parentPort!.postMessage({ done: true });
