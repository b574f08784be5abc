/**
 * Wraps an object so that every call of a chosen method runs inside a tracing span, without
 * touching the object's own code: the store backend and the payment providers are wrapped once at
 * start (`start.ts`), at the one place every caller goes through. Properties that are not wrapped
 * (and anything added to the object later) are read through unchanged.
 */
import type { SpanAttributes, Tracing } from "./tracing.ts";

export interface MethodSpan {
  name: string;
  attributes: SpanAttributes;
}

/**
 * `spanOf(method)` names the span of a method's calls, or null to leave the method alone. Wrapped
 * functions are made once per method; `this` is the wrapped object, as it would be unwrapped.
 */
export function traceMethods<T extends object>(target: T, tracing: Tracing, spanOf: (method: string) => MethodSpan | null): T {
  const wrapped = new Map<string | symbol, unknown>();
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== "function" || typeof property !== "string") return value;
      let traced = wrapped.get(property);
      if (traced === undefined) {
        const span = spanOf(property);
        const method = value as (...args: unknown[]) => unknown;
        traced = span
          ? (...args: unknown[]) => tracing.call(span.name, span.attributes, () => method.apply(object, args))
          : method.bind(object);
        wrapped.set(property, traced);
      }
      return traced;
    },
  });
}
