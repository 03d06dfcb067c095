/**
 * The classes' methods and accessors called on something that is not an instance, and a run
 * whose argument getters dispose the plan mid-call: typed errors, never V8's brand-check
 * TypeError or a "Cannot read properties of null" from released state.
 */
import { DisposedError, ElementKind, InvalidArgumentError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from './descriptor.js';
import { errataFor } from './errata.js';
import { smallProblem, fakeStream as stream, useFakeCudnn } from './fake-cudnn.test-helpers.js';
import { Conv3dPlan } from './plan.js';

const fake = useFakeCudnn();

/** Every method and accessor of a prototype, called on `self` with no arguments. */
function members(proto: object): [string, (self: unknown) => unknown][] {
  return Reflect.ownKeys(proto)
    .filter((key) => key !== 'constructor')
    .map((key) => {
      const property = Object.getOwnPropertyDescriptor(proto, key)!;
      const call = property.get ?? (property.value as (this: unknown) => unknown);
      const name =
        key === Symbol.dispose
          ? '[Symbol.dispose]'
          : typeof key === 'symbol'
            ? `[${key.description}]`
            : key;
      return [name, (self: unknown) => call.call(self)];
    });
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  return 'accepted';
}

describe('methods and accessors on a foreign this', () => {
  const desc = smallProblem(ElementKind.F32);
  class Other {
    dispose() {}
    describe() {
      return 'other';
    }
  }

  it('Conv3dDescriptor: every member refuses a copy, a bare prototype object, another class', () => {
    const all = members(Conv3dDescriptor.prototype);
    expect(all.map(([name]) => name)).toEqual(
      expect.arrayContaining(['withPadding', 'validate', 'xShape', 'describe', 'toString']),
    );
    for (const [name, call] of all) {
      for (const self of [
        { ...desc },
        Object.create(Conv3dDescriptor.prototype),
        new Other(),
        null,
      ]) {
        const error = thrown(() => call(self));
        expect(error, name).toEqual(
          new InvalidArgumentError(`this of Conv3dDescriptor#${name}`, 'a Conv3dDescriptor', self),
        );
      }
    }
    expect(thrown(() => Conv3dDescriptor.prototype.describe.call({ ...desc }))).toHaveProperty(
      'message',
      'Expected a Conv3dDescriptor for this of Conv3dDescriptor#describe but received an object',
    );
    // Instances are untouched.
    expect(desc.withPadding(0, 1, 1).validate().padH).toBe(1);
    expect(String(desc)).toBe(desc.describe());
  });

  it('Conv3dPlan: every member refuses a bare prototype object, a plain object, another class', () => {
    const all = members(Conv3dPlan.prototype);
    expect(all.map(([name]) => name)).toEqual(
      expect.arrayContaining(['runFw', 'dispose', '[Symbol.dispose]', 'disposed', 'sku']),
    );
    for (const [name, call] of all) {
      for (const self of [{}, Object.create(Conv3dPlan.prototype), new Other(), undefined]) {
        expect(
          thrown(() => call(self)),
          name,
        ).toEqual(new InvalidArgumentError(`this of Conv3dPlan#${name}`, 'a Conv3dPlan', self));
      }
    }
    expect(thrown(() => Conv3dPlan.prototype.runFw.call(new Other(), {} as never))).toHaveProperty(
      'message',
      'Expected a Conv3dPlan for this of Conv3dPlan#runFw but received an instance of Other',
    );
  });

  it('a descriptor made with Object.create(Conv3dDescriptor.prototype) is refused as an argument', () => {
    const mimic = Object.create(Conv3dDescriptor.prototype) as Conv3dDescriptor;
    expect(thrown(() => errataFor(mimic, 91400, {} as never))).toHaveProperty(
      'message',
      'Expected a Conv3dDescriptor for desc but received an instance of Conv3dDescriptor',
    );
    expect(thrown(() => Conv3dPlan.selectSync(stream, mimic))).toHaveProperty(
      'message',
      'Expected a Conv3dDescriptor for desc but received an instance of Conv3dDescriptor',
    );
  });
});

describe.skipIf(fake === null)(
  'a run whose argument getters dispose the plan (fake library; skipped where no C compiler is found)',
  () => {
    it('throws DisposedError instead of running on released state', () => {
      const desc = smallProblem(ElementKind.F16).withLayout('ndhwc');
      for (const [method, names] of [
        ['runFw', ['x', 'w', 'y']],
        ['runBwData', ['w', 'dy', 'dx']],
        ['runDw', ['x', 'dy', 'dw']],
      ] as const) {
        for (const victim of [...names, 'workspace', 'alpha']) {
          const plan = Conv3dPlan.selectSync(stream, desc, { algorithm: 'pinned' });
          const slice = { devicePtr: 0x10000n, byteLength: 1 << 20 };
          const args: Record<string, unknown> = { alpha: 1 };
          for (const name of names) args[name] = slice;
          Object.defineProperty(args, victim, {
            get() {
              plan.dispose();
              return victim === 'alpha' ? 1 : slice;
            },
          });
          expect(
            thrown(() => (plan[method] as (a: unknown) => void)(args)),
            `${method} ${victim}`,
          ).toEqual(new DisposedError('Conv3dPlan'));
        }
      }
    });
  },
);
