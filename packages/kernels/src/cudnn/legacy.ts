/**
 * The legacy API (cudnnConvolution*) for one problem: its tensor, filter and convolution
 * descriptors, the seed's pinned algorithms, the heuristic fallback (cudnnGet*Algorithm_v7) and
 * the run. Every per-pass difference comes from PASS_SPEC.
 */

import { ElementKind, UnsupportedError } from '@baracuda/types';
import type { ResolvedPlanPreference } from '../compat.js';
import { type Conv3dPass, type Operands, PASS_SPEC } from '../core/pass.js';
import type { AlgorithmInfo } from '../core/types.js';
import type { Conv3dDescriptor } from '../descriptor.js';
import { isAsymmetric, legacyAsymmetricRefusal } from '../padding.js';
import {
  type LegacyPerf,
  MathType,
  mathPrecisionOfLegacy,
  pickLegacyAlgorithm,
  pinnedMathType,
} from '../policy.js';
import {
  C,
  type ConvolutionDescriptor,
  type CudnnHandle,
  cudnn,
  cudnnDataType,
  type FilterDescriptor,
  lastErrorString,
  outputOf,
  statusName,
  type TensorDescriptor,
} from '../sys.js';
import type { CudnnScope } from './scope.js';
import { check, isNotSupported } from './status.js';

/** The problem's legacy descriptors by role (the w-like one a filter descriptor). */
interface Descriptors {
  readonly x: TensorDescriptor;
  readonly w: FilterDescriptor;
  readonly y: TensorDescriptor;
}

type Scale = Float32Array | Float64Array;

/** Each pass's legacy calls, with their operands in the order cuDNN takes them. */
const CALLS: Record<
  Conv3dPass,
  {
    workspace(
      h: CudnnHandle,
      d: Descriptors,
      conv: ConvolutionDescriptor,
      algo: number,
    ): { status: number };
    algorithms(
      h: CudnnHandle,
      d: Descriptors,
      conv: ConvolutionDescriptor,
      count: number,
    ): { status: number; perfResults: LegacyPerf[]; returnedAlgoCount: number };
    run(
      h: CudnnHandle,
      alpha: Scale,
      d: Descriptors,
      p: Operands,
      conv: ConvolutionDescriptor,
      algo: number,
      ws: bigint,
      wsBytes: number,
      beta: Scale,
    ): number;
  }
> = {
  fw: {
    workspace: (h, d, conv, algo) =>
      cudnn.cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, conv, d.y, algo),
    algorithms: (h, d, conv, n) =>
      cudnn.cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, conv, d.y, n),
    run: (h, a, d, p, conv, algo, ws, size, b) =>
      cudnn.cudnnConvolutionForward(h, a, d.x, p.x, d.w, p.w, conv, algo, ws, size, b, d.y, p.y),
  },
  bwData: {
    workspace: (h, d, conv, algo) =>
      cudnn.cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w, d.y, conv, d.x, algo),
    algorithms: (h, d, conv, n) =>
      cudnn.cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, conv, d.x, n),
    run: (h, a, d, p, conv, algo, ws, size, b) =>
      cudnn.cudnnConvolutionBackwardData(
        h,
        a,
        d.w,
        p.w,
        d.y,
        p.y,
        conv,
        algo,
        ws,
        size,
        b,
        d.x,
        p.x,
      ),
  },
  bwFilter: {
    workspace: (h, d, conv, algo) =>
      cudnn.cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x, d.y, conv, d.w, algo),
    algorithms: (h, d, conv, n) =>
      cudnn.cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x, d.y, conv, d.w, n),
    run: (h, a, d, p, conv, algo, ws, size, b) =>
      cudnn.cudnnConvolutionBackwardFilter(
        h,
        a,
        d.x,
        p.x,
        d.y,
        p.y,
        conv,
        algo,
        ws,
        size,
        b,
        d.w,
        p.w,
      ),
  },
};

/** @internal A legacy-API choice for one pass. */
export interface LegacyPass {
  readonly algo: number;
  readonly conv: ConvolutionDescriptor;
  readonly workspaceBytes: number;
  readonly info: AlgorithmInfo;
  readonly alphaBuf: Float32Array | Float64Array;
  readonly betaBuf: Float32Array | Float64Array;
}

/** @internal The legacy API of one problem, its descriptors made on first use. */
export class LegacyApi {
  readonly #scope: CudnnScope;
  readonly #desc: Conv3dDescriptor;
  readonly #preference: ResolvedPlanPreference;
  #base: { x?: TensorDescriptor; w?: FilterDescriptor; y?: TensorDescriptor } = {};

  constructor(scope: CudnnScope, desc: Conv3dDescriptor, preference: ResolvedPlanPreference) {
    this.#scope = scope;
    this.#desc = desc;
    this.#preference = preference;
  }

  /** A scope-owned legacy 5-D tensor descriptor of the problem's data type. */
  tensor(dims: readonly number[], strides: readonly number[], what: string): TensorDescriptor {
    return this.#scope.legacyTensor(cudnnDataType(this.#desc.element), dims, strides, what);
  }

  #descriptors(): Descriptors {
    const base = this.#base;
    if (base.x && base.w && base.y) return { x: base.x, w: base.w, y: base.y };
    const d = this.#desc;
    base.x ??= this.tensor(d.xShape, d.xStrides, 'x');
    base.y ??= this.tensor(d.yShape, d.yStrides, 'y');
    if (!base.w) {
      const format = d.layout === 'ndhwc' ? C.CUDNN_TENSOR_NHWC : C.CUDNN_TENSOR_NCHW;
      base.w = this.#scope.legacyFilter(cudnnDataType(d.element), format, d.wShape);
    }
    return { x: base.x, w: base.w, y: base.y };
  }

  #conv(mathType: number): ConvolutionDescriptor {
    const d = this.#desc;
    const problem = this.#scope.problem;
    // The legacy API takes one padding per axis, for both sides.
    if (isAsymmetric(d)) throw new UnsupportedError(legacyAsymmetricRefusal(problem));
    const conv = this.#scope.legacyConvolution();
    const compute = d.element === ElementKind.F64 ? C.CUDNN_DATA_DOUBLE : C.CUDNN_DATA_FLOAT;
    check(
      cudnn.cudnnSetConvolutionNdDescriptor(
        conv,
        3,
        Int32Array.of(d.padD, d.padH, d.padW),
        Int32Array.of(d.strideD, d.strideH, d.strideW),
        Int32Array.of(d.dilationD, d.dilationH, d.dilationW),
        C.CUDNN_CROSS_CORRELATION,
        compute,
      ),
      'cudnnSetConvolutionNdDescriptor',
      problem,
    );
    check(
      cudnn.cudnnSetConvolutionGroupCount(conv, d.groups),
      'cudnnSetConvolutionGroupCount',
      problem,
    );
    check(
      cudnn.cudnnSetConvolutionMathType(conv, mathType),
      'cudnnSetConvolutionMathType',
      problem,
    );
    return conv;
  }

  /** Workspace size of a legacy algorithm; returns the raw status when cuDNN refuses. */
  #workspace(
    pass: Conv3dPass,
    conv: ConvolutionDescriptor,
    algo: number,
  ): { status: number; bytes: number } {
    const r = CALLS[pass].workspace(this.#scope.handle.handle, this.#descriptors(), conv, algo);
    return {
      status: r.status,
      bytes: r.status === 0 ? Number(outputOf<number | bigint>(r, 'sizeInBytes')) : 0,
    };
  }

  #pass(
    algo: number,
    name: string,
    conv: ConvolutionDescriptor,
    mathType: number,
    deterministic: boolean,
    workspaceBytes: number,
  ): LegacyPass {
    const f64 = this.#desc.element === ElementKind.F64;
    return {
      algo,
      conv,
      workspaceBytes,
      alphaBuf: f64 ? new Float64Array(1) : new Float32Array(1),
      betaBuf: f64 ? new Float64Array(1) : new Float32Array(1),
      info: Object.freeze({
        path: 'legacy' as const,
        name,
        numericalNotes: Object.freeze(mathType === MathType.TENSOR_OP ? ['TENSOR_CORE'] : []),
        workspaceBytes,
        deterministic,
        mathPrecision: mathPrecisionOfLegacy(mathType, this.#desc.element),
      }),
    };
  }

  /** The seed's pinned algorithm of the pass. */
  pinned(pass: Conv3dPass): LegacyPass {
    const { name: what, legacy } = PASS_SPEC[pass];
    const algoName = legacy.pinned;
    const algo = C[legacy.pinned];
    const problem = this.#scope.problem;
    const mathType = pinnedMathType(this.#desc.element, this.#preference.allowTf32);
    const conv = this.#conv(mathType);
    const ws = this.#workspace(pass, conv, algo);
    if (isNotSupported(ws.status)) {
      throw new UnsupportedError(
        `The pinned ${what} algorithm ${algoName} (the seed's choice) does not support ${problem}: ` +
          `its workspace query returned ${statusName(ws.status)}${lastErrorString() ? ` (${lastErrorString()})` : ''}. ` +
          "Use algorithm 'heuristic' (the default) instead.",
      );
    }
    check(ws.status, legacy.workspace, `${problem} ${algoName}`);
    if (ws.bytes > this.#preference.maxWorkspaceBytes) {
      throw new UnsupportedError(
        `The pinned ${what} algorithm ${algoName} needs ${ws.bytes} bytes of workspace for ${problem}, ` +
          `more than preference.maxWorkspaceBytes (${this.#preference.maxWorkspaceBytes})`,
      );
    }
    return this.#pass(algo, algoName, conv, mathType, true, ws.bytes);
  }

  /** Legacy fallback of the heuristic path: cudnnGet*Algorithm_v7, first allowed result. */
  heuristic(pass: Conv3dPass): LegacyPass {
    const d = this.#desc;
    const pref = this.#preference;
    const problem = this.#scope.problem;
    const mathType =
      d.element === ElementKind.F32
        ? pref.allowTf32
          ? MathType.DEFAULT
          : MathType.FMA
        : pinnedMathType(d.element, pref.allowTf32);
    const conv = this.#conv(mathType);
    const call = PASS_SPEC[pass].legacy.algorithms;
    const r = CALLS[pass].algorithms(this.#scope.handle.handle, this.#descriptors(), conv, 8);
    check(r.status, call, `${problem} ${pass}`);
    const perfs = r.perfResults ?? outputOf<LegacyPerf[]>(r, 'perfResults');
    const count = typeof r.returnedAlgoCount === 'number' ? r.returnedAlgoCount : perfs.length;
    const pick = pickLegacyAlgorithm(perfs.slice(0, count), pref, d.element);
    if (pick === null) {
      throw new UnsupportedError(
        `No cuDNN algorithm can run the ${PASS_SPEC[pass].name} pass of ${problem} under the preference ` +
          `(deterministic=${pref.deterministic}, allowTf32=${pref.allowTf32}, ` +
          `maxWorkspaceBytes=${pref.maxWorkspaceBytes}): no graph-API engine config passed, ` +
          `and ${call} offered ${perfs.map((p) => `algo ${p.algo} (status ${p.status}, ${p.memory} bytes, determinism ${p.determinism}, math ${p.mathType})`).join(', ') || 'nothing'}`,
      );
    }
    check(
      cudnn.cudnnSetConvolutionMathType(conv, pick.mathType),
      'cudnnSetConvolutionMathType',
      problem,
    );
    const ws = this.#workspace(pass, conv, pick.algo);
    check(ws.status, 'cudnnGetConvolution*WorkspaceSize', `${problem} ${pass} algo ${pick.algo}`);
    return this.#pass(
      pick.algo,
      `CUDNN_CONVOLUTION_${PASS_SPEC[pass].legacy.prefix}_ALGO ${pick.algo}`,
      conv,
      pick.mathType,
      pick.determinism === 1,
      ws.bytes,
    );
  }

  /** Enqueue the pass with `lp` on `handle` (bound to the stream already). */
  run(
    pass: Conv3dPass,
    lp: LegacyPass,
    handle: CudnnHandle,
    ptr: Operands,
    ws: bigint,
    alpha: number,
    beta: number,
  ): void {
    const descs = this.#descriptors();
    const { legacy, name: what } = PASS_SPEC[pass];
    lp.alphaBuf[0] = alpha;
    lp.betaBuf[0] = beta;
    const call = legacy.run;
    const status = CALLS[pass].run(
      handle,
      lp.alphaBuf,
      descs,
      ptr,
      lp.conv,
      lp.algo,
      ws,
      lp.workspaceBytes,
      lp.betaBuf,
    );
    if (status === 0) return;
    const problem = this.#scope.problem;
    if (this.#preference.algorithm === 'pinned' && isNotSupported(status)) {
      throw new UnsupportedError(
        `The pinned ${what} algorithm ${legacy.pinned} (the seed's choice) does not support ${problem}: ` +
          `${call} returned ${statusName(status)}${lastErrorString() ? ` (${lastErrorString()})` : ''}. Use algorithm 'heuristic' (the default) instead.`,
      );
    }
    check(status, call, `${problem} ${pass} ${lp.info.name}`);
  }
}
