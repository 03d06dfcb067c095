/**
 * Factory-only classes: `Conv3dDescriptor` is made by `Conv3dDescriptor.create` (and its `with...`
 * copies), `Conv3dPlan` by `Conv3dPlan.select` / `selectSync`, never by `new`. Each constructor
 * takes this module's token first and checks it before anything else, so `new Conv3dPlan()` from
 * JavaScript (or a subclass's `super()`) gets a typed error naming the factory instead of a
 * half-built object. The token is not exported from the package.
 * @internal
 */
import { UnsupportedError } from '@baracuda/types';

/** @internal */
export const FACTORY_TOKEN: unique symbol = Symbol('@baracuda/kernels factory');

/** @internal */
export type FactoryToken = typeof FACTORY_TOKEN;

/** Throws unless `token` is the factory token; `factory` is what users should call. @internal */
export function requireFactoryToken(token: unknown, className: string, factory: string): void {
  if (token !== FACTORY_TOKEN) {
    throw new UnsupportedError(`${className} cannot be constructed with new: use ${factory}`);
  }
}
