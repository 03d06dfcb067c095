/**
 * The kernel SKU vocabulary: what a selected kernel is (category, op, element kinds, layout,
 * epilogue), where it runs (arch) and who implements it (backend), plus its numerical promise.
 * Every tag is a string constant, like {@link ElementKind}, so a SKU prints and serialises as is.
 */
import type { ElementKind } from './element.js';
import { InvalidArgumentError } from './errors.js';
import { expectBoolean, expectInteger } from './validate.js';

/** Top-level op family of a kernel. */
export const OpCategory = {
  Gemm: 'gemm',
  UnaryElementwise: 'unary_elementwise',
  BinaryElementwise: 'binary_elementwise',
  TernaryElementwise: 'ternary_elementwise',
  Reduction: 'reduction',
  Scan: 'scan',
  Normalization: 'normalization',
  Softmax: 'softmax',
  /** conv1d/2d/3d, transposed and depthwise; the op is a {@link ConvKind}. */
  Convolution: 'convolution',
  Pooling: 'pooling',
  Attention: 'attention',
  Indexing: 'indexing',
  ShapeLayout: 'shape_layout',
  Sorting: 'sorting',
  Quantization: 'quantization',
  Random: 'random',
  Fft: 'fft',
  Linalg: 'linalg',
} as const;
export type OpCategory = (typeof OpCategory)[keyof typeof OpCategory];

/**
 * The op of a {@link OpCategory.Convolution} kernel: dimensionality and pass. Padding, stride,
 * dilation and groups live on the problem descriptor, not here.
 */
export const ConvKind = {
  Conv1d: 'conv1d',
  Conv1dBackwardData: 'conv1d_backward_data',
  Conv1dBackwardFilter: 'conv1d_backward_filter',
  Conv2d: 'conv2d',
  Conv2dBackwardData: 'conv2d_backward_data',
  Conv2dBackwardFilter: 'conv2d_backward_filter',
  Conv3d: 'conv3d',
  Conv3dBackwardData: 'conv3d_backward_data',
  Conv3dBackwardFilter: 'conv3d_backward_filter',
  ConvTranspose1d: 'conv_transpose1d',
  ConvTranspose2d: 'conv_transpose2d',
  ConvTranspose3d: 'conv_transpose3d',
  DepthwiseConv2d: 'depthwise_conv2d',
} as const;
export type ConvKind = (typeof ConvKind)[keyof typeof ConvKind];

/**
 * The GPU architecture a kernel targets, named after its compute capability.
 *
 * A device reports a plain capability: an H100 (cc 9.0) is {@link ArchSku.Sm90}. The `a` SKUs
 * (`sm90a`) are build targets for architecture-specific instructions (wgmma, TMA multicast);
 * no device ever reports one, so {@link archSkuFromComputeCapability} never returns them. A
 * kernel whose SKU says `sm90a` runs only on cc 9.0 devices.
 */
export const ArchSku = {
  /** Volta, cc 7.0 (V100). */
  Sm70: 'sm70',
  /** Turing, cc 7.5 (T4, RTX 20xx). */
  Sm75: 'sm75',
  /** Ampere datacentre, cc 8.0 (A100). */
  Sm80: 'sm80',
  /** Ampere consumer, cc 8.6 (RTX 30xx, A10, A40). */
  Sm86: 'sm86',
  /** Ampere embedded, cc 8.7 (Jetson Orin). */
  Sm87: 'sm87',
  /** Ada Lovelace, cc 8.9 (RTX 40xx, L4, L40). */
  Sm89: 'sm89',
  /** Hopper, cc 9.0 (H100, H200). */
  Sm90: 'sm90',
  /** Hopper with its architecture-specific features; a build target, never reported by a device. */
  Sm90a: 'sm90a',
  /** Blackwell datacentre, cc 10.0 (B200, GB200). */
  Sm100: 'sm100',
  /** Blackwell Ultra, cc 10.3 (B300, GB300). */
  Sm103: 'sm103',
  /** Blackwell consumer, cc 12.0 (RTX 50xx, RTX PRO 6000). */
  Sm120: 'sm120',
  /** A capability this version does not know, or no device at all (CPU backends). */
  Unknown: 'unknown',
} as const;
export type ArchSku = (typeof ArchSku)[keyof typeof ArchSku];

const ARCH_BY_CAPABILITY: ReadonlyMap<string, ArchSku> = new Map([
  ['7.0', ArchSku.Sm70],
  ['7.5', ArchSku.Sm75],
  ['8.0', ArchSku.Sm80],
  ['8.6', ArchSku.Sm86],
  ['8.7', ArchSku.Sm87],
  ['8.9', ArchSku.Sm89],
  ['9.0', ArchSku.Sm90],
  ['10.0', ArchSku.Sm100],
  ['10.3', ArchSku.Sm103],
  ['12.0', ArchSku.Sm120],
]);

/**
 * The {@link ArchSku} of a device of compute capability `major.minor` (as `cuDeviceGetAttribute`
 * reports it). Capabilities not listed in ArchSku (7.2, 12.1, a future 13.0) give
 * {@link ArchSku.Unknown}; never an `a` SKU. Throws `InvalidArgumentError` unless both are
 * non-negative integers.
 */
export function archSkuFromComputeCapability(major: number, minor: number): ArchSku {
  expectInteger('major', major, { min: 0 });
  expectInteger('minor', minor, { min: 0 });
  return ARCH_BY_CAPABILITY.get(`${major}.${minor}`) ?? ArchSku.Unknown;
}

/**
 * The compute capability an ArchSku stands for (`sm90a` gives 9.0), or `undefined` for
 * {@link ArchSku.Unknown}.
 */
export function computeCapabilityOfArchSku(
  arch: ArchSku,
): { readonly major: number; readonly minor: number } | undefined {
  if (typeof arch !== 'string') {
    throw new InvalidArgumentError('arch', 'an ArchSku string such as sm90', arch);
  }
  const match = /^sm(\d+)(\d)a?$/.exec(arch);
  if (match === null) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]) };
}

/** Who implements a kernel. */
export const BackendKind = {
  /** NVIDIA cuDNN (graph or legacy API). */
  Cudnn: 'cudnn',
  /** A CUTLASS template instantiation. */
  Cutlass: 'cutlass',
  /** NVIDIA cuBLAS / cuBLASLt. */
  Cublas: 'cublas',
  /** A kernel written for baracuda itself. */
  Native: 'native',
  /** A host (CPU) implementation, e.g. the f64 reference in conformance. */
  Cpu: 'cpu',
} as const;
export type BackendKind = (typeof BackendKind)[keyof typeof BackendKind];

/**
 * Memory layout of a kernel's tensors. Tensor layouts name the dimensions slowest first
 * (`ndhwc`: channels fastest); matrix layouts follow the GEMM convention.
 */
export const LayoutSku = {
  /** Batch, channels, depth, height, width: PyTorch's default 5-D layout. */
  Ncdhw: 'ncdhw',
  /** Batch, depth, height, width, channels ("channels last 3d"): the tensor-core layout. */
  Ndhwc: 'ndhwc',
  Nchw: 'nchw',
  Nhwc: 'nhwc',
  Ncl: 'ncl',
  Nlc: 'nlc',
  /** A dense row-major (C order) tensor of any rank. */
  RowMajor: 'row_major',
  /** A dense column-major (Fortran order) tensor of any rank. */
  ColMajor: 'col_major',
  /** GEMM: A row-major, B column-major, C/D row-major. */
  Rcr: 'rcr',
  /** GEMM: A, B and C/D all row-major. */
  Rrr: 'rrr',
} as const;
export type LayoutSku = (typeof LayoutSku)[keyof typeof LayoutSku];

/** What a kernel applies to its result before the store. */
export const EpilogueKind = {
  /** `y = α·op(x) + β·y`. */
  Identity: 'identity',
  /** Plus a bias broadcast along the channel (GEMM: column) dimension. */
  Bias: 'bias',
  BiasRelu: 'bias_relu',
  /** Exact (erf) GELU, as PyTorch's default `nn.GELU()`. */
  BiasGelu: 'bias_gelu',
  BiasSilu: 'bias_silu',
} as const;
export type EpilogueKind = (typeof EpilogueKind)[keyof typeof EpilogueKind];

/** The precision of the multiply inside a kernel's math instructions. */
export const MathPrecision = {
  F16: 'f16',
  Bf16: 'bf16',
  /** TensorFloat-32: f32 storage, inputs cut to a 10-bit mantissa in the tensor cores. */
  Tf32: 'tf32',
  /**
   * 3xTF32: f32 storage, every f32 input a split into a TF32 high part and a TF32 remainder
   * (`hi = tf32(a)`, `lo = tf32(a − hi)`, so `|a − hi − lo| ≤ 2⁻²² |a|`), and the bilinear
   * product as three TF32 tensor-core products `hi·hi + hi·lo + lo·hi`, accumulated in f32 (the
   * CUTLASS trick). The dropped `lo·lo` term and the split's remainder are each about 2⁻²² of a
   * product's size, below the f32 accumulation's own rounding over a convolution's sums, so the
   * result is close to strict f32: it is held to the strict-f32 tolerance, not TF32's (about
   * 2⁻¹¹). Not bit-identical to strict f32. Inputs within a TF32 ulp of the f32 range's ends,
   * and subnormal remainders (which tensor cores may flush), lose what strict f32 would keep.
   */
  Tf32x3: 'tf32x3',
  F32: 'f32',
  F64: 'f64',
  /** 8-bit integer multiply, 32-bit integer accumulate. */
  Int8: 'int8',
  Fp8E4m3: 'fp8_e4m3',
  Fp8E5m2: 'fp8_e5m2',
} as const;
export type MathPrecision = (typeof MathPrecision)[keyof typeof MathPrecision];

/** The numerical promise of a kernel. */
export interface PrecisionGuarantee {
  /** Precision of the multiply in the math instructions. */
  readonly mathPrecision: MathPrecision;
  /** Element kind of the accumulator. */
  readonly accumulator: ElementKind;
  /** Same inputs on the same GPU and library version give bit-identical outputs, run after run. */
  readonly bitStableOnSameHardware: boolean;
  /** No run-to-run nondeterminism at all (no atomics across blocks, no racing split-K). */
  readonly deterministic: boolean;
}

/** Which kernel a plan selected: what it computes, where, by whom, and how precisely. */
export interface KernelSku {
  readonly category: OpCategory;
  /** The op within the category: a {@link ConvKind} for {@link OpCategory.Convolution}. */
  readonly op: string;
  /** Primary element kind of the kernel's tensors. */
  readonly element: ElementKind;
  /** A second element kind when the op has one (bias, index or output cast); else undefined. */
  readonly auxElement: ElementKind | undefined;
  /** Tensor or matrix layout when the kernel has one; else undefined. */
  readonly layout: LayoutSku | undefined;
  /** Fused epilogue when the kernel has one; else undefined. */
  readonly epilogue: EpilogueKind | undefined;
  readonly arch: ArchSku;
  readonly backend: BackendKind;
  readonly precisionGuarantee: PrecisionGuarantee;
}

/**
 * One line naming a SKU, stable enough to key a cache or compare in a test:
 * `convolution/conv3d f16 ndhwc sm90 cudnn math=f16 acc=f32 deterministic bit-stable`.
 * Undefined fields are left out; `aux=` and `epilogue=` appear only when set.
 */
export function formatKernelSku(sku: KernelSku): string {
  if (typeof sku !== 'object' || sku === null) {
    throw new InvalidArgumentError('sku', 'a KernelSku object', sku);
  }
  const pg = sku.precisionGuarantee;
  if (typeof pg !== 'object' || pg === null) {
    throw new InvalidArgumentError('sku.precisionGuarantee', 'a PrecisionGuarantee object', pg);
  }
  const tag = (name: string, value: unknown, optional = false): string | undefined => {
    if (typeof value === 'string' || (optional && value === undefined)) return value;
    throw new InvalidArgumentError(name, optional ? 'a string or undefined' : 'a string', value);
  };
  const parts = [`${tag('sku.category', sku.category)}/${tag('sku.op', sku.op)}`];
  parts.push(tag('sku.element', sku.element)!);
  const aux = tag('sku.auxElement', sku.auxElement, true);
  if (aux !== undefined) parts.push(`aux=${aux}`);
  const layout = tag('sku.layout', sku.layout, true);
  if (layout !== undefined) parts.push(layout);
  const epilogue = tag('sku.epilogue', sku.epilogue, true);
  if (epilogue !== undefined) parts.push(`epilogue=${epilogue}`);
  parts.push(tag('sku.arch', sku.arch)!, tag('sku.backend', sku.backend)!);
  parts.push(
    `math=${tag('sku.precisionGuarantee.mathPrecision', pg.mathPrecision)}`,
    `acc=${tag('sku.precisionGuarantee.accumulator', pg.accumulator)}`,
  );
  parts.push(
    expectBoolean('sku.precisionGuarantee.deterministic', pg.deterministic)
      ? 'deterministic'
      : 'nondeterministic',
  );
  parts.push(
    expectBoolean('sku.precisionGuarantee.bitStableOnSameHardware', pg.bitStableOnSameHardware)
      ? 'bit-stable'
      : 'not-bit-stable',
  );
  return parts.join(' ');
}
