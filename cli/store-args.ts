/**
 * Flags every store-touching command accepts. A file of its own so that declaring a command's
 * flags does not load the stores: `vkr status --url` only asks a running service.
 */
export const STORE_ARGS = {
  "data-dir": { type: "string", description: "State folder (default: DATA_DIR or ./data)" },
  "dist-dir": { type: "string", description: "Build folder (default: DIST_DIR or ./dist)" },
  json: { type: "boolean", description: "Print JSON instead of text", default: false },
} as const;
