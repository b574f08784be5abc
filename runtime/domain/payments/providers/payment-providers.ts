/**
 * The shape of a deployment's payment providers, apart from `createPaymentProviders`
 * (create-providers.ts), which loops over the method registry: the deps (domain/domain-deps.ts)
 * name this shape, and the methods take the deps, so a shape that imported the registry would
 * close a circle of types through the deps. Types only.
 */
import type { PaymentsConfig } from "../../runtime-config.ts";

/**
 * One field per method that has a provider, null when unconfigured. Each method's provider file
 * adds its own field (a `declare module` block on this file, beside its factory), so a new method
 * names its provider's type in its own folder and `deps.payments.<field>` is typed without an edit
 * here.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from each method's provider file.
export interface PaymentProviders {}

/** How a method builds its provider (or null) from the payments config; `field` is its place in `PaymentProviders`. */
export type MethodProvider = {
  [F in keyof PaymentProviders]: { field: F; create(config: PaymentsConfig): PaymentProviders[F] };
}[keyof PaymentProviders];
