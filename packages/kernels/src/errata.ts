import { ElementKind, expectBoolean, expectInteger, InvalidArgumentError } from '@baracuda/types';
import { expectObject, expectString, expectStrings } from './checks.js';
import type { PlanPreference } from './compat.js';
import { type Conv3dDescriptor, isConv3dDescriptor } from './descriptor.js';

/** A cuDNN version as cudnnGetVersion() encodes it in cuDNN 9: major*10000 + minor*100 + patch. */
export type CudnnVersionCode = number;

/** What the plan does where an erratum applies. */
export type ErratumAction =
  /** Refuse with UnsupportedError: no path known to be right. */
  | 'refuse'
  /**
   * Run the problem in NDHWC (channels-last), which the defect does not touch: the plan's
   * layout detour (exec/layout-detour.ts) transposes its NCDHW operands into plan-owned NDHWC
   * scratch on our layout kernels (cudnnTransformTensor where they do not load), runs the NDHWC
   * plan, and transposes the result back, honouring the caller's alpha/beta.
   * Only for NCDHW problems; the pinned mode (the seed's unverified algorithms) is refused.
   */
  | 'via-ndhwc'
  /**
   * Run f32 strictly (no TF32 engines, FMA math on the legacy path; `math: '3xtf32'` becomes
   * `'default'`, whose strict f32 is more precise still), a path known to be right.
   */
  | 'strict-f32';

/** One known defect of a cuDNN release range. */
export interface Erratum {
  /** Stable id, also the name to pass in `ignoreErrata`. */
  readonly id: string;
  /** First affected version (inclusive), cudnnGetVersion() encoding. */
  readonly fromVersion: CudnnVersionCode;
  /** First fixed version (exclusive bound). */
  readonly toVersion: CudnnVersionCode;
  readonly elements: readonly ElementKind[];
  /** Whether it applies to this problem and preference (the version and element already match). */
  readonly condition: (desc: Conv3dDescriptor, preference: PlanPreference) => boolean;
  readonly action: ErratumAction;
  /** How the action was verified to give right results. */
  readonly verification?: string;
  readonly description: string;
  readonly links: readonly string[];
}

/** Format a cudnnGetVersion() code: 91400 → "9.14.0". */
export function formatCudnnVersion(code: CudnnVersionCode): string {
  expectInteger('code', code, { min: 0 });
  const major = Math.floor(code / 10000);
  const minor = Math.floor((code % 10000) / 100);
  const patch = code % 100;
  return `${major}.${minor}.${patch}`;
}

/**
 * Known-bad cuDNN releases for 3-D convolution. Conditions are PyTorch's, read from
 * aten/src/ATen/native/Convolution.cpp (`ConvParams::use_cudnn`) after PR 163581, and
 * from PR 167024 for TF32.
 */
export const CONV3D_ERRATA: readonly Erratum[] = [
  {
    id: 'cudnn-9.8-conv3d-half-ncdhw',
    // PyTorch: `cudnn_version >= 90800 && cudnn_version < 91500`.
    fromVersion: 90800,
    toVersion: 91500,
    elements: [ElementKind.F16, ElementKind.Bf16],
    // PyTorch: memory format Contiguous (NCDHW), 5-D weight, any spatial filter extent != 1.
    // It applies no size threshold, although the report's repro is large (1×16×124×1282×722).
    condition: (desc) =>
      desc.layout === 'ncdhw' && (desc.dFilt !== 1 || desc.hFilt !== 1 || desc.wFilt !== 1),
    // Checked on an NVIDIA H200 (cuDNN 9.14.0, 2026-11-30; packages/conformance/RESULTS.md) against
    // the f64 reference: the issue's reproducer (1×16×124×1282×722, k 1×3×3) and a 2^28-element
    // U-Net layer, f16 and bf16, all three passes, came out right in NDHWC on the fast engines
    // (fw 22, bwData 67, bwFilter 65, at PyTorch's speed), and in NCDHW only on engines 28 (fw),
    // 0/1/25 (bwData) and 1 (bwFilter), which are 17–95× slower (and depthwise bwFilter has none).
    // PyTorch never said which kernel is broken, so the plan runs these problems in NDHWC.
    action: 'via-ndhwc',
    verification:
      'verified on an NVIDIA H200 with cuDNN 9.14.0 on 2026-11-30 against the f64 reference, on the PyTorch 163539 reproducer (1×16×124×1282×722, k 1×3×3) and a 2^28-element U-Net layer, f16 and bf16, all passes: right in NDHWC (engines 22/67/65) and in NCDHW only on engines 28/0/1/25/1',
    description:
      'cuDNN 9.8–9.14 computes wrong f16/bf16 3-D convolutions in NCDHW layout with a filter larger than 1×1×1 ' +
      '(silent corruption reported on large shapes; PyTorch stops using cuDNN for these)',
    links: [
      'https://github.com/pytorch/pytorch/issues/163539',
      'https://github.com/pytorch/pytorch/pull/163581',
    ],
  },
  {
    id: 'cudnn-9.10-conv3d-tf32',
    // PR 167024: "known to affect 9.10.2-9.15".
    fromVersion: 91002,
    toVersion: 91600,
    elements: [ElementKind.F32],
    // 3xTF32 runs on the same TF32 kernels.
    condition: (_desc, preference) => preference.allowTf32 || preference.math === '3xtf32',
    action: 'strict-f32',
    description:
      'cuDNN 9.10.2–9.15 has a broken TF32 kernel for 3-D convolutions (no clearly defined constraints); ' +
      'PyTorch disables TF32 for cuDNN 3-D convolutions, and so does this plan: it runs strict f32',
    links: [
      'https://github.com/pytorch/pytorch/pull/167024',
      'https://github.com/pytorch/pytorch/issues/163539',
    ],
  },
];

/**
 * The errata that apply to a problem under a cuDNN version and a preference.
 * Pure: used at `Conv3dPlan.select` and by the conformance suite.
 */
export function errataFor(
  desc: Conv3dDescriptor,
  cudnnVersion: CudnnVersionCode,
  preference: PlanPreference,
  table: readonly Erratum[] = CONV3D_ERRATA,
): Erratum[] {
  checkDescriptor(desc);
  expectInteger('cudnnVersion', cudnnVersion, { min: 0 });
  const p = expectObject('preference', preference, 'a PlanPreference object');
  // What the conditions read.
  expectBoolean('preference.allowTf32', p.allowTf32);
  expectBoolean('preference.deterministic', p.deterministic);
  if (!Array.isArray(table)) throw new InvalidArgumentError('table', 'an array of errata', table);
  for (let i = 0; i < table.length; i++) checkErratum(`table[${i}]`, table[i]);
  return table.filter(
    (e) =>
      cudnnVersion >= e.fromVersion &&
      cudnnVersion < e.toVersion &&
      e.elements.includes(desc.element) &&
      e.condition(desc, preference),
  );
}

function checkDescriptor(desc: unknown): void {
  if (!isConv3dDescriptor(desc)) {
    throw new InvalidArgumentError('desc', 'a Conv3dDescriptor', desc);
  }
}

/** An erratum's fields, as this module reads them. */
function checkErratum(name: string, erratum: unknown): void {
  const e = expectObject(name, erratum, 'an Erratum object');
  expectString(`${name}.id`, e.id);
  expectString(`${name}.description`, e.description);
  expectInteger(`${name}.fromVersion`, e.fromVersion, { min: 0 });
  expectInteger(`${name}.toVersion`, e.toVersion, { min: 0 });
  expectStrings(`${name}.elements`, e.elements, 'an array of element kinds');
  expectStrings(`${name}.links`, e.links, 'an array of links');
  if (typeof e.condition !== 'function') {
    throw new InvalidArgumentError(`${name}.condition`, 'a function', e.condition);
  }
}

/** The message of the UnsupportedError a refusing erratum raises. */
export function erratumRefusal(
  erratum: Erratum,
  desc: Conv3dDescriptor,
  cudnnVersion: CudnnVersionCode,
  reason?: string,
): string {
  checkErratum('erratum', erratum);
  checkDescriptor(desc);
  expectInteger('cudnnVersion', cudnnVersion, { min: 0 });
  if (reason !== undefined) expectString('reason', reason);
  return (
    `Refusing ${desc.describe()} on cuDNN ${formatCudnnVersion(cudnnVersion)}: ${erratum.description}; ${reason ? `${reason} ` : ''}` +
    `(affected: ${formatCudnnVersion(erratum.fromVersion)} up to, not including, ${formatCudnnVersion(erratum.toVersion)}; ` +
    `see ${erratum.links.join(' , ')}). ` +
    'Fix: use cuDNN >= 9.16 by pointing BARACUDA_CUDNN_LIBRARY at its libcudnn.so.9 ' +
    "(for example the nvidia-cudnn-cu12 wheel's nvidia/cudnn/lib/libcudnn.so.9)" +
    (erratum.id === 'cudnn-9.8-conv3d-half-ncdhw' ? ", or use layout 'ndhwc'" : '') +
    `. To run it anyway, pass ignoreErrata: ['${erratum.id}'] to Conv3dPlan.select.`
  );
}

/** The message of the UnsupportedError a 'via-ndhwc' erratum raises for the pinned algorithm. */
export function erratumPinnedRefusal(
  erratum: Erratum,
  desc: Conv3dDescriptor,
  cudnnVersion: CudnnVersionCode,
): string {
  return erratumRefusal(
    erratum,
    desc,
    cudnnVersion,
    "the pinned algorithms (the seed's choice) were not verified on the defect's reproducers, and the plan runs such problems only through NDHWC with algorithm 'heuristic' (the default) or 'autotune'.",
  );
}
