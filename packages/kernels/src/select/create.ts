/**
 * A problem's plan core made for select: cuDNN loaded, the workspace limit settled, the errata
 * applied (a warning for each one ignored, a refusal, strict f32, or the layout detour for every
 * pass), the shared handle acquired; under `math: '3xtf32'`, the 3xTF32 split of every pass over
 * an inner plan of the same problem with TF32 math.
 */
import { ElementKind, InvalidArgumentError, UnsupportedError } from '@baracuda/types';
import type { PlanPreference, ResolvedPlanPreference } from '../compat.js';
import type { ResolvedOptions } from '../core/types.js';
import { acquireHandle } from '../cudnn/handle.js';
import type { Conv3dDescriptor } from '../descriptor.js';
import { settleWorkspaceLimit } from '../device-memory.js';
import {
  type Erratum,
  errataFor,
  erratumPinnedRefusal,
  erratumRefusal,
  formatCudnnVersion,
} from '../errata.js';
import { isAsymmetric, legacyAsymmetricRefusal } from '../padding.js';
import { SplitKernels } from '../split-tf32.js';
import { type DeviceLike, deviceOf, loadCudnn, type StreamLike } from '../sys.js';
import { otherLayoutClean, PlanCore } from './core.js';

/** The core of a plan of `desc` (checked already) on `stream`, under the asked preference. */
export function createCore(
  stream: StreamLike,
  desc: Conv3dDescriptor,
  asked: PlanPreference,
  opts: ResolvedOptions,
): PlanCore {
  if (asked.math === '3xtf32' && desc.element !== ElementKind.F32) {
    throw new InvalidArgumentError('desc.element', "'f32' with math '3xtf32'", desc.element);
  }
  if (asked.algorithm === 'pinned' && isAsymmetric(desc)) {
    throw new UnsupportedError(legacyAsymmetricRefusal(desc.describe()));
  }
  const version = loadCudnn();
  const device = deviceOf(stream);
  let pref = settleWorkspaceLimit(asked, desc, device);
  const applied: string[] = [];
  let via: Erratum | undefined;
  for (const erratum of errataFor(desc, version, pref)) {
    if (opts.ignoreErrata.includes(erratum.id)) {
      process.emitWarning(
        `Running ${desc.describe()} on cuDNN ${formatCudnnVersion(version)} despite erratum ${erratum.id}: ${erratum.description}`,
        { type: 'BaracudaWarning', code: 'BARACUDA_ERRATUM_IGNORED' },
      );
      continue;
    }
    if (erratum.action === 'refuse') {
      throw new UnsupportedError(erratumRefusal(erratum, desc, version));
    }
    if (erratum.action === 'via-ndhwc') {
      if (pref.algorithm === 'pinned') {
        // The seed's legacy algorithms were not verified on the defect's reproducers.
        throw new UnsupportedError(erratumPinnedRefusal(erratum, desc, version));
      }
      if (desc.layout !== 'ncdhw') {
        throw new UnsupportedError(erratumRefusal(erratum, desc, version));
      }
      via = erratum;
    } else {
      pref = { ...pref, allowTf32: false, math: 'default' };
    }
    applied.push(erratum.id);
  }
  device.makeCurrent?.();
  if (pref.math === '3xtf32') return splitCore(stream, device, desc, pref, version, applied, opts);
  return plainCore(stream, device, desc, pref, version, applied, opts, via);
}

/** A plan of the problem as it is (or through the layout detour every pass takes). */
function plainCore(
  stream: StreamLike,
  device: DeviceLike,
  desc: Conv3dDescriptor,
  pref: ResolvedPlanPreference,
  version: number,
  applied: string[],
  opts: ResolvedOptions,
  via: Erratum | undefined,
): PlanCore {
  const always =
    opts.layoutDetour === 'always' &&
    pref.algorithm !== 'pinned' &&
    otherLayoutClean(desc, version, pref);
  if (via === undefined && !always) {
    const handle = acquireHandle(device.ordinal, desc.describe());
    return new PlanCore(stream, device, desc, pref, version, handle, applied);
  }
  // The same problem in the other layout (NDHWC: which the erratum does not touch) as its own plan.
  const inner = PlanCore.twin(stream, device, desc, pref, version);
  try {
    const handle = acquireHandle(device.ordinal, desc.describe());
    return new PlanCore(stream, device, desc, pref, version, handle, applied, {
      detour: { erratum: via, inner },
    });
  } catch (error) {
    inner.dispose();
    throw error;
  }
}

/**
 * A `math: '3xtf32'` plan: every pass split into three TF32 products of an inner plan of the same
 * problem with TF32 math (heuristic or autotuned, its own layout detour where asked), on our split
 * kernel; UnsupportedError where that kernel does not load.
 */
function splitCore(
  stream: StreamLike,
  device: DeviceLike,
  desc: Conv3dDescriptor,
  pref: ResolvedPlanPreference,
  version: number,
  applied: string[],
  opts: ResolvedOptions,
): PlanCore {
  const kernels = SplitKernels.forDevice(device);
  if (kernels instanceof Error) {
    throw new UnsupportedError(
      `math '3xtf32' needs baracuda's TF32 split kernel, which did not load on ${device.name} (${kernels.message}); select ${desc.describe()} with math 'default' instead`,
    );
  }
  const innerPref: ResolvedPlanPreference = { ...pref, allowTf32: true, math: 'default' };
  const inner = plainCore(stream, device, desc, innerPref, version, [], opts, undefined);
  try {
    const handle = acquireHandle(device.ordinal, desc.describe());
    return new PlanCore(stream, device, desc, pref, version, handle, applied, {
      split: { kernels, inner },
    });
  } catch (error) {
    inner.dispose();
    throw error;
  }
}
