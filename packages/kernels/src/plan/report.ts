/** What a plan reports of itself: the precision it gives, and the identity of its kernels. */

import { ElementKind } from '@baracuda/types';
import {
  type ArchSku,
  archSkuFromComputeCapability,
  type KernelSku,
  type PrecisionGuarantee,
} from '../compat.js';
import { skuEpilogue } from '../epilogue/epilogue.js';
import { intendedMathPrecision } from '../policy.js';
import type { PlanCore } from '../select/core.js';

/**
 * Before any pass is built, the preference's intent; after, the truth of the chosen
 * engines/algorithms (TF32 if any built f32 pass uses tensor cores, else 3xTF32 if any built pass
 * runs as three TF32 products, nondeterministic if any built pass is).
 */
export function precisionGuarantee(core: PlanCore): PrecisionGuarantee {
  const { desc, preference } = core.ctx;
  const element = desc.element;
  const built = core.builtInfos();
  const accumulator = element === ElementKind.F64 ? ElementKind.F64 : ElementKind.F32;
  if (built.length === 0) {
    const deterministic = preference.deterministic || preference.algorithm === 'pinned';
    const mathPrecision =
      preference.math === '3xtf32'
        ? 'tf32x3'
        : intendedMathPrecision(element, preference.allowTf32);
    return { mathPrecision, accumulator, deterministic, bitStableOnSameHardware: deterministic };
  }
  // The least precise pass speaks for the plan: TF32, then 3xTF32, then the rest.
  const weakest = (['tf32', 'tf32x3'] as const).find((m) =>
    built.some((i) => i.mathPrecision === m),
  );
  const mathPrecision = weakest ?? built[0]!.mathPrecision;
  const deterministic = built.every((i) => i.deterministic);
  return { mathPrecision, accumulator, deterministic, bitStableOnSameHardware: deterministic };
}

/**
 * Element, layout, arch from the device's compute capability, and the backend: `'native'` when
 * every pass built so far runs on baracuda's own kernels, else `'cudnn'`.
 */
export function kernelSku(core: PlanCore): KernelSku {
  const { desc, device } = core.ctx;
  const built = core.builtInfos();
  const cc = device.computeCapability;
  const arch =
    (device.arch as ArchSku | undefined) ?? archSkuFromComputeCapability(cc.major, cc.minor);
  return {
    category: 'convolution',
    op: 'conv3d',
    element: desc.element,
    auxElement: undefined,
    layout: desc.layout,
    epilogue: skuEpilogue(desc.epilogue),
    arch,
    backend: built.length > 0 && built.every((i) => i.path === 'native') ? 'native' : 'cudnn',
    precisionGuarantee: precisionGuarantee(core),
  };
}
