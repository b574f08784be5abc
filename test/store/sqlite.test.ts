/** The store contract on the embedded SQLite backend (one file shared by several connections). */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteBackend } from "../../runtime/storage/sqlite-backend.ts";
import { testBackend } from "./backend-contract.ts";

testBackend("sqlite", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "vkr-store-"));
  return { shared: true, create: async () => createSqliteBackend({ dataDir }) };
});
