/**
 * A process that counts quota windows in the embedded store as a server does (checkpoints on a
 * worker), `batches` batches of 64 requests over `keys` keys in turn, then kills itself with
 * SIGKILL, leaving whatever the counter log holds unfolded. The log's generation and fold sizes
 * are the test's (counter-log.ts). Run by test/store/sqlite-counter-log.test.ts:
 *
 *   node --import tsx test/helpers/counter-log-writer.ts <dataDir> <keys> <batches> <now> <generation> <fold>
 */
import { createSqliteBackend } from "../../runtime/state/storage/sqlite-backend.ts";
import { numberedKeyWindows } from "./numbered-key-windows.ts";

const [dataDir, keys, batches, now, generationEntries, foldBatches] = [process.argv[2]!, ...process.argv.slice(3, 8).map(Number)] as [
  string,
  number,
  number,
  number,
  number,
  number,
];
const backend = createSqliteBackend({
  dataDir,
  onCheckpointError: (m) => process.stderr.write(`checkpoint: ${m}\n`),
  counterLog: { generationEntries, foldBatches },
});
let next = 0;
for (let b = 0; b < batches; b++) {
  await Promise.all(Array.from({ length: 64 }, () => backend.consume(numberedKeyWindows(next++ % keys, now), 1, now)));
}
process.stdout.write(`counted ${next}\n`, () => process.kill(process.pid, "SIGKILL"));
