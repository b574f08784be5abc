/** The client limiter on the embedded SQLite store: two connections to one file are two instances. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteBackend } from "../../runtime/state/storage/sqlite-backend.ts";
import { testClientLimiter } from "./client-limiter-contract.ts";

testClientLimiter("sqlite", false, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "vkr-limiter-"));
  return { open: async () => createSqliteBackend({ dataDir }) };
});
