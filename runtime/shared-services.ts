/**
 * Services the routes share, created once per app and injected with the other dependencies rather
 * than made inside each route: the per-client limits of free reads, the signer of answers and the
 * cache of layer selections (signed once when derived). Each surface keeps its own free-read count (GET /api/demo, GET /api/search, POST
 * /mcp, the pages), as each has its own `ANON_RATE_PER_MINUTE` allowance per client. Their shape,
 * `SharedServices`, is declared in domain/domain-deps.ts, where the domain and the edges that use
 * them can name it.
 */
import type { RuntimeConfig } from "./config.ts";
import type { SharedServices } from "./domain/domain-deps.ts";
import { createLayerSelector } from "./domain/layers/select-layers.ts";
import { createAnonymousLimiter } from "./domain/metering/anonymous-limit.ts";
import { createAnswerSigner } from "./domain/signing/answer-signer.ts";
import type { StateBackend } from "./state/storage/backend.ts";
import { createClientLimiter } from "./state/storage/client-limiter.ts";

/** Selections kept: 15 per node variant at most, so this covers the hot set of a large vertical. */
const LAYER_CACHE_ENTRIES = 512;

export function createSharedServices(
  config: Pick<RuntimeConfig, "anonymousPerMinute" | "signing">,
  backend: Pick<StateBackend, "kind" | "consume" | "readCounters">,
): SharedServices {
  const limits = createClientLimiter(backend);
  const freeReads = (surface: "demo" | "search" | "mcp" | "pages") =>
    createAnonymousLimiter(limits, `free-reads:${surface}`, config.anonymousPerMinute);
  const signer = createAnswerSigner(config.signing);
  return Object.freeze({
    limits,
    freeReads: Object.freeze({ demo: freeReads("demo"), search: freeReads("search"), mcp: freeReads("mcp"), pages: freeReads("pages") }),
    layers: createLayerSelector({ maxEntries: LAYER_CACHE_ENTRIES, sign: (bytes, identity) => signer.sign(bytes, identity) }),
    signer,
  });
}
