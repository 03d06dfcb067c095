/** The epilogue's options: every validation rule with its exact message, defaults, and how a descriptor carries it. */
import { ElementKind } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from '../descriptor.js';
import { ACTIVATION_CODE, Epilogue, skuEpilogue } from './epilogue.js';
import { EPILOGUE_REFUSALS } from './refusals.test-helpers.js';
import { ACTIVATIONS } from './validate.js';

const desc = () =>
  Conv3dDescriptor.create({
    batch: 2,
    cIn: 3,
    dIn: 4,
    hIn: 5,
    wIn: 6,
    cOut: 8,
    dFilt: 3,
    hFilt: 3,
    wFilt: 3,
    element: ElementKind.F32,
  });

function refusal(options: unknown): Error {
  try {
    Epilogue.create(options as never);
  } catch (error) {
    return error as Error;
  }
  throw new Error('no error');
}

describe('Epilogue.create', () => {
  it.each(EPILOGUE_REFUSALS)('refuses %j', (options, type, message) => {
    const error = refusal(options);
    expect(error).toBeInstanceOf(type);
    expect(error.message).toBe(message);
  });

  it('reads each option once', () => {
    let reads = 0;
    const options = {
      get activation() {
        reads++;
        return reads === 1 ? 'relu' : 'nonsense';
      },
    };
    expect(Epilogue.create(options as never).activation).toBe('relu');
    expect(reads).toBe(1);
  });

  it('resolves defaults and describes itself', () => {
    expect(Epilogue.create({})).toBe(Epilogue.NONE);
    expect(Epilogue.create({ activation: 'identity', bias: false })).toBe(Epilogue.NONE);
    expect(Epilogue.NONE.describe()).toBe('none');
    const leaky = Epilogue.create({ bias: true, activation: 'leakyRelu' });
    expect([leaky.slope, leaky.describe()]).toEqual([0.01, 'bias+leakyRelu(0.01)']);
    const clamp = Epilogue.create({ activation: 'clamp', min: 0, max: 6, residual: true });
    expect(clamp.describe()).toBe('z+clamp(0,6)');
    const open = Epilogue.create({ activation: 'clamp', min: -1 });
    expect([open.min, open.max]).toEqual([-1, Number.POSITIVE_INFINITY]);
    expect(Epilogue.create({ bias: true, residual: true, activation: 'gelu' }).describe()).toBe(
      'bias+z+gelu',
    );
    expect(Object.isFrozen(leaky)).toBe(true);
  });

  it('says which tensor the backward needs kept', () => {
    const input = (activation: (typeof ACTIVATIONS)[number]) =>
      Epilogue.create({ bias: true, activation }).backwardInput;
    expect(ACTIVATIONS.map(input)).toEqual([
      'none',
      'output',
      'preActivation',
      'preActivation',
      'preActivation',
      'preActivation',
      'output',
      'output',
      'output',
    ]);
  });

  it('names itself in a kernel SKU where the vocabulary has a name', () => {
    const sku = (o: object) => skuEpilogue(Epilogue.create(o));
    expect([
      sku({}),
      sku({ bias: true }),
      sku({ bias: true, activation: 'relu' }),
      sku({ bias: true, activation: 'gelu' }),
      sku({ bias: true, activation: 'silu' }),
      sku({ bias: true, activation: 'tanh' }),
      sku({ activation: 'relu' }),
      sku({ bias: true, residual: true, activation: 'relu' }),
    ]).toEqual([
      'identity',
      'bias',
      'bias_relu',
      'bias_gelu',
      'bias_silu',
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('numbers the activations as cuda/epilogue.cu does', () => {
    expect(ACTIVATIONS.map((a) => ACTIVATION_CODE[a])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('refuses a foreign this', () => {
    const describe_ = Epilogue.prototype.describe;
    expect(() => describe_.call({})).toThrow(
      'Expected a Epilogue for this of Epilogue#describe but received an object',
    );
    const isNone = Object.getOwnPropertyDescriptor(Epilogue.prototype, 'isNone')!.get!;
    expect(() => isNone.call(Object.create(Epilogue.prototype))).toThrow('this of Epilogue#isNone');
  });

  it('cannot be constructed with new', () => {
    const Ctor = Epilogue as unknown as new (t: unknown, f: unknown) => Epilogue;
    expect(() => new Ctor(Symbol('x'), {})).toThrow(
      'Epilogue cannot be constructed with new: use Epilogue.create',
    );
  });
});

describe('Conv3dDescriptor.withEpilogue', () => {
  it('carries the epilogue through every copy and names it in describe()', () => {
    const plain = desc();
    expect(plain.epilogue).toBe(Epilogue.NONE);
    const d = plain.withEpilogue({ bias: true, activation: 'relu' }).withLayout('ndhwc');
    expect(d.epilogue.describe()).toBe('bias+relu');
    expect(d.describe()).toBe(`${plain.withLayout('ndhwc').describe()} epilogue=bias+relu`);
    expect(plain.describe()).not.toContain('epilogue');
    expect(d.withEpilogue({}).describe()).toBe(plain.withLayout('ndhwc').describe());
    expect(() => plain.withEpilogue({ activation: 'clamp', min: 1, max: 0 })).toThrow(
      'Expected min <= max for clamp but received min 1 and max 0',
    );
  });
});
