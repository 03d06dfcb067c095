/**
 * The shared vocabulary kernels uses, from `@baracuda/types`, in one place so a rename there
 * is a one-file change here.
 */
export {
  type ArchSku,
  archSkuFromComputeCapability,
  elementInfo,
  type KernelSku,
  type MathPrecision,
  type PlanAlgorithm,
  type PlanPreference,
  type PrecisionGuarantee,
  resolvePlanPreference,
} from '@baracuda/types';

import type { PlanPreference } from '@baracuda/types';

/**
 * A preference with every field filled and the workspace limit settled to a byte count: what a
 * plan selected with (`'auto'` becomes the limit it worked out for its problem and device).
 */
export type ResolvedPlanPreference = Omit<PlanPreference, 'maxWorkspaceBytes'> & {
  readonly maxWorkspaceBytes: number;
};
