/**
 * Decimal USD strings ↔ integer micro-dollars, for the wire formats that carry money as text
 * (KYAPay `amount`/`amt`, the network's `chargeAmount`). Never goes through a float.
 */
import { formatUsd } from "../../../shared/money.ts";

const DECIMAL_RE = /^(\d{1,12})(?:\.(\d{1,6})\d*)?$/;

/** "0.002" → 2000; "15.000000" → 15000000; null for anything that is not a plain decimal. Digits past 6 decimals are dropped. */
export function parseUsdDecimal(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const match = DECIMAL_RE.exec(value.trim());
  if (!match) return null;
  return Number(match[1]) * 1_000_000 + Number((match[2] ?? "").padEnd(6, "0"));
}

/** 2000 → "0.002000"; 19000000 → "19.000000". */
export function toUsdDecimal(micros: number): string {
  return `${Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, "0")}`;
}

/** For messages: 2000 → "$0.002", 19000000 → "$19", 1900000 → "$1.90". */
export function formatUsdExact(micros: number): string {
  if (micros % 10_000 === 0) return formatUsd(micros);
  return `$${toUsdDecimal(micros).replace(/0+$/, "")}`;
}
