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

/** A preference with every field filled, as `resolvePlanPreference` returns it. */
export type ResolvedPlanPreference = PlanPreference;
