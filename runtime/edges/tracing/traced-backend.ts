/**
 * The state store as tracing sees it: each backend operation (the atomic primitives and the
 * record reads and writes) is a CLIENT span `store <operation>` with `db.system.name` sqlite or
 * redis. A span covers what its caller waited for, so a quota check that shared a group commit
 * with others shows the commit's whole wait. Keys and values are never recorded (a record's key
 * holds a key's hash).
 */
import type { StateBackend } from "../../state/storage/backend.ts";
import { traceMethods } from "./traced-methods.ts";
import type { Tracing } from "./tracing.ts";

const OPERATIONS = new Set(["consume", "readCounters", "insertOnce", "removeOnce", "claimPosition", "countList"]);
/** unstorage's `Storage` methods that reach the backend (`ping`, `close`, `watch` are left alone). */
const RECORD_OPERATIONS = new Set([
  "getItem",
  "getItems",
  "getItemRaw",
  "setItem",
  "setItems",
  "setItemRaw",
  "removeItem",
  "hasItem",
  "getKeys",
  "clear",
  "getMeta",
  "setMeta",
  "removeMeta",
]);

export function traceBackend(backend: StateBackend, tracing: Tracing): StateBackend {
  const system = backend.kind;
  const span = (operation: string) => ({
    name: `store ${operation}`,
    attributes: { "db.system.name": system, "db.operation.name": operation },
  });
  const records = traceMethods(backend.records, tracing, (method) => (RECORD_OPERATIONS.has(method) ? span(method) : null));
  const traced = traceMethods(backend, tracing, (method) => (OPERATIONS.has(method) ? span(method) : null));
  return new Proxy(traced, { get: (object, property) => (property === "records" ? records : Reflect.get(object, property)) });
}
