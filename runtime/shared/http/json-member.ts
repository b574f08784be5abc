/**
 * Adds one member in front of a prebuilt JSON object's bytes without parsing them: free views and
 * warned answers are the prebuilt artifact plus one field, so the artifact is never re-serialized.
 */
const ENCODER = new TextEncoder();

export function prependJsonMember(bytes: Uint8Array, name: string, value: unknown): Uint8Array {
  const member = ENCODER.encode(`{${JSON.stringify(name)}:${JSON.stringify(value)}${bytes.length > 2 ? "," : ""}`);
  const out = new Uint8Array(member.length + bytes.length - 1);
  out.set(member, 0);
  // Every artifact is one JSON object with no leading whitespace: drop its "{".
  out.set(bytes.subarray(1), member.length);
  return out;
}
