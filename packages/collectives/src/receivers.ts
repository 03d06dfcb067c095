/**
 * Brand checks on `this` (as @baracuda/driver does for its classes): a method or accessor called
 * on something that is not one of the class's own instances (`Communicator.prototype.abort.call({})`,
 * `Object.create(Communicator.prototype)`) throws `InvalidArgumentError` naming the class and the
 * member, instead of V8's TypeError about private fields or an answer from garbage.
 * @internal
 */
import { InvalidArgumentError } from '@baracuda/types';

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

/** @internal */
export function guardReceivers(
  cls: { readonly prototype: object },
  className: string,
  brand: (value: unknown) => boolean,
): void {
  const proto = cls.prototype;
  const article = /^[AEIOU]/.test(className) ? 'an' : 'a';
  const guard = (f: AnyFunction, member: string): AnyFunction => {
    const wrapper = function (this: unknown, ...args: unknown[]): unknown {
      if (!brand(this)) {
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
  };
  for (const key of Reflect.ownKeys(proto)) {
    if (key === 'constructor') continue;
    const property = Object.getOwnPropertyDescriptor(proto, key);
    if (property === undefined) continue;
    const member =
      key === Symbol.dispose
        ? '[Symbol.dispose]'
        : typeof key === 'symbol'
          ? `[${key.description ?? ''}]`
          : key;
    if (typeof property.value === 'function') property.value = guard(property.value, member);
    if (property.get) property.get = guard(property.get as AnyFunction, member);
    if (property.set) property.set = guard(property.set as AnyFunction, member);
    Object.defineProperty(proto, key, property);
  }
}
