/**
 * Factory-only classes: every class of this package whose objects wrap native
 * state is made by its factories (`Device.get`, `Stream.create`,
 * `DeviceBuffer.alloc`, ...), never by `new`. Each constructor takes this
 * module's token first and checks it before anything else, so `new Device()`
 * from JavaScript (or a subclass's `super()`) gets a typed error naming the
 * factory instead of a half-built object. The token is not exported from the
 * package.
 * @internal
 */
import { UnsupportedError } from '@baracuda/types';

/** @internal */
export const FACTORY_TOKEN: unique symbol = Symbol('@baracuda/driver factory');

/** @internal */
export type FactoryToken = typeof FACTORY_TOKEN;

/** Throws unless `token` is the factory token; `factory` is what users should call. @internal */
export function requireFactoryToken(token: unknown, className: string, factory: string): void {
  if (token !== FACTORY_TOKEN) {
    throw new UnsupportedError(`${className} cannot be constructed with new: use ${factory}`);
  }
}
