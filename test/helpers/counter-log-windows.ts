/** A key's quota windows (hour, day, month in one row) for the counter log tests, numbered so a test and its child process agree. */
import { createHash } from "node:crypto";
import type { CounterWindow } from "../../runtime/storage/backend.ts";

const HOUR = 3_600_000;

export function counterLogWindows(i: number, now: number, limit = Number.MAX_SAFE_INTEGER): CounterWindow[] {
  const id = createHash("sha256").update(`key-${i}`).digest("hex").slice(0, 12);
  const row = `q:{k:${id}}:${id}`;
  const hour = Math.floor(now / HOUR);
  return [
    { key: `${row}:h:${hour}`, row, limit, expiresAt: (hour + 1) * HOUR },
    { key: `${row}:d:${Math.floor(hour / 24)}`, row, limit: Number.MAX_SAFE_INTEGER, expiresAt: (Math.floor(hour / 24) + 1) * 24 * HOUR },
    { key: `${row}:m:life`, row, limit: Number.MAX_SAFE_INTEGER, expiresAt: Number.MAX_SAFE_INTEGER },
  ];
}
