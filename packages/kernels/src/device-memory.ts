/** The device memory free now, and the workspace limit `'auto'` settles to from it. */
import type { PlanPreference, ResolvedPlanPreference } from './compat.js';
import type { Conv3dDescriptor } from './descriptor.js';
import { autoWorkspaceLimit } from './policy.js';
import type { DeviceLike } from './sys.js';

/**
 * The device memory free now (`cuMemGetInfo`), or undefined where there is no reading: then no
 * cap is derived from it, and an allocation that does not fit reports the shortage, typed.
 */
export function freeDeviceBytes(device: DeviceLike): number | undefined {
  try {
    return device.memoryInfo?.().free;
  } catch {
    return undefined;
  }
}

/**
 * The preference with `maxWorkspaceBytes: 'auto'` settled for this problem on this device (see
 * {@link autoWorkspaceLimit}); a byte count is kept as given.
 */
export function settleWorkspaceLimit(
  pref: PlanPreference,
  desc: Conv3dDescriptor,
  device: DeviceLike,
): ResolvedPlanPreference {
  if (pref.maxWorkspaceBytes !== 'auto') return pref as ResolvedPlanPreference;
  const tensorBytes = (desc.xElements + desc.wElements + desc.yElements) * desc.elementBytes;
  return Object.freeze({
    ...pref,
    maxWorkspaceBytes: autoWorkspaceLimit(tensorBytes, freeDeviceBytes(device)),
  });
}
