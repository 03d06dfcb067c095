/**
 * Brand checks on `this`: a method or accessor of a driver class called on something that is not
 * one of its instances (`Stream.prototype.query.call({})`, a copy `{...buffer}`,
 * `Object.create(DeviceBuffer.prototype)`, an Event given as a Stream's `this`) throws
 * `InvalidArgumentError` naming the class and member, instead of V8's TypeError ("Cannot read
 * private member", "Receiver must be an instance of class") or, for a member that reads only
 * public fields, a silent answer from garbage. Each class supplies its brand check (`#field in o`,
 * which only its own body can write, so `instanceof` and look-alikes do not pass) from a static
 * block; this module wraps every method and accessor of its prototype once, when the class is
 * defined.
 * @internal
 */
import { InvalidArgumentError } from '@baracuda/types';

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

/** A brand check: true only for objects the class's own constructor made. @internal */
export type Brand = (value: unknown) => boolean;

function memberName(key: string | symbol): string {
  if (key === Symbol.dispose) return '[Symbol.dispose]';
  return typeof key === 'symbol' ? `[${key.description ?? ''}]` : key;
}

function guarded(f: AnyFunction, className: string, member: string, brand: Brand): AnyFunction {
  const wrapper = function (this: unknown, ...args: unknown[]): unknown {
    if (!brand(this)) {
      const article = /^[AEIOU]/.test(className) ? 'an' : 'a';
      throw new InvalidArgumentError(
        `this of ${className}#${member}`,
        `${article} ${className}`,
        this,
      );
    }
    return f.apply(this, args);
  };
  Object.defineProperty(wrapper, 'name', { value: f.name });
  Object.defineProperty(wrapper, 'length', { value: f.length });
  return wrapper;
}

/** Wraps every method and accessor of `cls.prototype` (not the constructor) with `brand`. @internal */
export function guardReceivers(
  cls: { readonly prototype: object },
  className: string,
  brand: Brand,
): void {
  const proto = cls.prototype;
  for (const key of Reflect.ownKeys(proto)) {
    if (key === 'constructor') continue;
    const property = Object.getOwnPropertyDescriptor(proto, key);
    if (property === undefined) continue;
    const member = memberName(key);
    if (typeof property.value === 'function') {
      property.value = guarded(property.value as AnyFunction, className, member, brand);
    }
    if (property.get) property.get = guarded(property.get as AnyFunction, className, member, brand);
    if (property.set) property.set = guarded(property.set as AnyFunction, className, member, brand);
    Object.defineProperty(proto, key, property);
  }
}
