/**
 * The one encoder of a store key's variable parts. Every part that comes from a request or a
 * record (an account, an agent, a client, a session id, a grant id…) is hex of its UTF-8 bytes, so
 * no ":" separator, "{…}" Redis hash tag or path trick in the input reaches the key. The output is
 * byte-identical to the hand-written encoders it replaced, so data stored before still reads.
 */
export function keyPart(value: string): string {
  return Buffer.from(value, "utf8").toString("hex");
}

/** Account names compare case-insensitively, so an account's keys are built from its lower case. */
export function accountPart(account: string): string {
  return keyPart(account.toLowerCase());
}
