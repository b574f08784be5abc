/** The store contract on the embedded SQLite backend (one file shared by several connections). */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { createSqliteBackend } from "../../runtime/state/storage/sqlite-backend.ts";
import { testBackend } from "./backend-contract.ts";

testBackend("sqlite", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "vkr-store-"));
  return { shared: true, create: async () => createSqliteBackend({ dataDir }) };
});

// As the server opens it: WAL checkpoints on a worker thread, none inside a commit.
testBackend("sqlite, background checkpoints", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "vkr-store-"));
  return { shared: true, create: async () => createSqliteBackend({ dataDir, onCheckpointError: (m) => expect.fail(m) }) };
});
