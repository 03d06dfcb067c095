import { UnsupportedError } from '@baracuda/types';
import { describe, expect, it } from 'vitest';
import { Conv3dDescriptor } from './descriptor.js';
import { Conv3dPlan } from './plan.js';

type Constructor = new (...args: unknown[]) => object;

describe('factory-only classes', () => {
  it('new Conv3dPlan() names select and selectSync, with any arguments, and from a subclass', () => {
    const Plan = Conv3dPlan as unknown as Constructor;
    const message =
      'Conv3dPlan cannot be constructed with new: use Conv3dPlan.select or Conv3dPlan.selectSync';
    expect(() => new Plan()).toThrow(new UnsupportedError(message));
    expect(() => new Plan({ raw: 0n }, {}, {})).toThrow(message);
    expect(() => new Plan(Symbol('@baracuda/kernels factory'))).toThrow(message);
    class Sub extends Plan {}
    expect(() => new Sub()).toThrow(message);
    expect(() => Reflect.construct(Plan, [])).toThrow(UnsupportedError);
  });

  it('new Conv3dDescriptor() names Conv3dDescriptor.create', () => {
    const Descriptor = Conv3dDescriptor as unknown as Constructor;
    const message = 'Conv3dDescriptor cannot be constructed with new: use Conv3dDescriptor.create';
    expect(() => new Descriptor()).toThrow(new UnsupportedError(message));
    expect(() => new Descriptor({ batch: 1, cIn: 1 })).toThrow(message);
    class Sub extends Descriptor {}
    expect(() => new Sub({})).toThrow(message);
    // The factories still make them.
    const d = Conv3dDescriptor.create({
      batch: 1,
      cIn: 1,
      dIn: 2,
      hIn: 2,
      wIn: 2,
      cOut: 1,
      dFilt: 1,
      hFilt: 1,
      wFilt: 1,
      element: 'f32' as never,
    });
    expect(d.withPadding(0, 0, 0).withLayout('ndhwc').layout).toBe('ndhwc');
  });
});
