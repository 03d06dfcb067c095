/**
 * A class's methods and accessors called on something that is not one of its instances
 * (`Conv3dPlan.prototype.runFw.call({})`, a copy `{...plan}`, `Object.create(Conv3dPlan.prototype)`)
 * throw `InvalidArgumentError` naming the class, instead of V8's brand-check TypeError ("Receiver
 * must be an instance of class", "Cannot read private member") or, for a method that touches no
 * private field, a silent answer from garbage. The class supplies the brand check (`#field in o`,
 * which only its own body can write); this module wraps every method and accessor of its
 * prototype with it, once, when the class is defined.
 * @internal
 */
import { InvalidArgumentError } from '@baracuda/types';

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

function guarded(
  f: AnyFunction,
  className: string,
  member: string,
  isInstance: (value: unknown) => boolean,
): AnyFunction {
  const wrapper = function (this: unknown, ...args: unknown[]): unknown {
    if (!isInstance(this)) {
      throw new InvalidArgumentError(`this of ${className}#${member}`, `a ${className}`, this);
    }
    return f.apply(this, args);
  };
  Object.defineProperty(wrapper, 'name', { value: f.name });
  Object.defineProperty(wrapper, 'length', { value: f.length });
  return wrapper;
}

function memberName(key: string | symbol): string {
  if (key === Symbol.dispose) return '[Symbol.dispose]';
  return typeof key === 'symbol' ? `[${key.description ?? ''}]` : key;
}

/** Wrap every method and accessor of `cls.prototype` (not the constructor) with `isInstance`. */
export function guardReceivers(
  cls: { readonly prototype: object; readonly name: string },
  className: string,
  isInstance: (value: unknown) => boolean,
): void {
  const proto = cls.prototype;
  for (const key of Reflect.ownKeys(proto)) {
    if (key === 'constructor') continue;
    const property = Object.getOwnPropertyDescriptor(proto, key)!;
    const member = memberName(key);
    if (typeof property.value === 'function') {
      property.value = guarded(property.value, className, member, isInstance);
    }
    if (property.get) property.get = guarded(property.get, className, member, isInstance);
    if (property.set) property.set = guarded(property.set, className, member, isInstance);
    Object.defineProperty(proto, key, property);
  }
}
