/**
 * Generators of hostile input for the fuzz suite: wrong types, missing and extra fields, huge and
 * deeply nested values, unicode edge cases, injection strings, malformed keys and tokens.
 */
import fc from "fast-check";

/**
 * Names of Object.prototype members: any lookup keyed by request data through a plain object
 * finds these on every object (once `?q=constructor` answered 500). Every string parameter
 * and every JSON key gets each of them in every seeded run (see `prototypeWordExamples`).
 */
export const PROTOTYPE_WORDS = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"] as const;

export const NASTY_STRINGS = [
  "",
  " ",
  "null",
  "undefined",
  "../../etc/passwd",
  "%00",
  "\u0000",
  "\uFEFF",
  "\uD800",
  "😀".repeat(50),
  "' OR 1=1 --",
  "<script>alert(1)</script>",
  "${7*7}",
  ...PROTOTYPE_WORDS,
  "a".repeat(5000),
  "svc_live_" + "A".repeat(22),
  "svc_trial_" + "z".repeat(22),
  "svc_live_",
  "eyJhbGciOiJFUzI1NiJ9.e30.c2ln",
  "1e309",
  "-0",
  "\r\nX-Injected: 1",
];

export const nastyString = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
);

/** Any JSON value, biased to shapes that break naive handlers. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(0, -1, 1.0000001, 2 ** 53, Number.MAX_SAFE_INTEGER),
    nastyString,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(nastyString, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** A body: usually an object with some expected field names and hostile values. */
export function bodyFor(fieldNames: string[]): fc.Arbitrary<unknown> {
  const known = fieldNames.length ? fc.constantFrom(...fieldNames) : nastyString;
  return fc.oneof(
    fc.dictionary(fc.oneof(known, nastyString), anyJson, { maxKeys: 6 }),
    anyJson,
    fc.constant(_deep(2000)),
    fc.constant({ ...Object.fromEntries(fieldNames.map((f) => [f, "x".repeat(70_000)])) }),
  );
}

/** Values for the `{name}` segments of a path; a segment that is empty, a dot segment or holds a slash would be another path. */
export const pathParamsFor = (names: string[]) =>
  fc
    .tuple(...names.map(() => nastyString.filter((v) => v !== "" && v !== "." && v !== ".." && !v.includes("/"))))
    .map((values) => Object.fromEntries(names.map((n, i) => [n, values[i]!])));

/**
 * Explicit examples for an operation: each prototype word alone as each query parameter (so no
 * other invalid parameter answers 400 first), as an extra query name, as each body field and as
 * an extra JSON key, with every path parameter set to the word. Given to fast-check as
 * `examples`, so they run first in every seeded run, whatever the seed.
 */
export function prototypeWordExamples(
  queryNames: string[],
  pathNames: string[],
  bodyFields: string[],
): Array<[[string, string][], Record<string, string>, Record<string, string>, unknown, boolean]> {
  return PROTOTYPE_WORDS.flatMap((word) => {
    const path = Object.fromEntries(pathNames.map((n) => [n, word]));
    const queries: [string, string][][] = [...queryNames.map((n): [string, string][] => [[n, word]]), [[word, word]]];
    const bodies: unknown[] = [...bodyFields.map((f) => ({ [f]: word })), Object.fromEntries([[word, word]])];
    return [
      ...queries.map((query): [[string, string][], Record<string, string>, Record<string, string>, unknown, boolean] => [
        query,
        path,
        {},
        {},
        false,
      ]),
      ...bodies.map((body): [[string, string][], Record<string, string>, Record<string, string>, unknown, boolean] => [
        [],
        path,
        {},
        body,
        false,
      ]),
    ];
  });
}

export const queryFor = (names: string[]) =>
  fc.array(fc.tuple(fc.oneof(fc.constantFrom(...(names.length ? names : ["q"])), nastyString), nastyString), { maxLength: 5 });

export const headerSets = fc.record(
  {
    "x-service-key": nastyString,
    "pay-network-pay-id": nastyString,
    authorization: fc.oneof(
      fc.constant("Bearer "),
      nastyString.map((s) => `Bearer ${s}`),
      nastyString,
    ),
    "content-type": fc.constantFrom(
      "application/json",
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/json; charset=utf-16",
      "",
    ),
    "if-none-match": nastyString,
    "idempotency-key": nastyString,
  },
  { requiredKeys: [] },
);

function _deep(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}
