/**
 * The legacy API (cudnnConvolution*) for one problem: its tensor, filter and convolution
 * descriptors, the seed's pinned algorithms, the heuristic fallback (cudnnGet*Algorithm_v7) and
 * the run. Every per-pass difference comes from PASS_SPEC.
 */
import { ElementKind, UnsupportedError } from '@baracuda/types';
import type { ResolvedPlanPreference } from '../compat.js';
import { type Conv3dPass, PASS_SPEC, type Role } from '../core/pass.js';
import type { AlgorithmInfo } from '../core/types.js';
import type { Conv3dDescriptor } from '../descriptor.js';
import {
  type LegacyPerf,
  MathType,
  mathPrecisionOfLegacy,
  pickLegacyAlgorithm,
  pinnedMathType,
} from '../policy.js';
import {
  C,
  type CudnnHandle,
  cudnn,
  cudnnDataType,
  type LegacyDescriptor,
  lastErrorString,
  outputOf,
  statusName,
} from '../sys.js';
import type { CudnnScope } from './scope.js';
import { check, isNotSupported } from './status.js';

/** @internal A legacy-API choice for one pass. */
export interface LegacyPass {
  readonly algo: number;
  readonly conv: LegacyDescriptor;
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
  #base: Partial<Record<Role, LegacyDescriptor>> = {};

  constructor(scope: CudnnScope, desc: Conv3dDescriptor, preference: ResolvedPlanPreference) {
    this.#scope = scope;
    this.#desc = desc;
    this.#preference = preference;
  }

  /** A scope-owned legacy 5-D tensor descriptor of the problem's data type. */
  tensor(dims: readonly number[], strides: readonly number[], what: string): LegacyDescriptor {
    return this.#scope.legacyTensor(cudnnDataType(this.#desc.element), dims, strides, what);
  }

  #descriptors(): Record<Role, LegacyDescriptor> {
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

  #conv(mathType: number): LegacyDescriptor {
    const d = this.#desc;
    const problem = this.#scope.problem;
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

  /** The pass's (input, input, output) descriptors, in its legacy calls' order. */
  #ordered(pass: Conv3dPass): [LegacyDescriptor, LegacyDescriptor, LegacyDescriptor] {
    const descs = this.#descriptors();
    const [a, b, out] = PASS_SPEC[pass].legacy.order;
    return [descs[a], descs[b], descs[out]];
  }

  /** Workspace size of a legacy algorithm; returns the raw status when cuDNN refuses. */
  #workspace(
    pass: Conv3dPass,
    conv: LegacyDescriptor,
    algo: number,
  ): { status: number; bytes: number } {
    const [a, b, out] = this.#ordered(pass);
    const r = cudnn[PASS_SPEC[pass].legacy.workspace](
      this.#scope.handle.handle,
      a,
      b,
      conv,
      out,
      algo,
    );
    return {
      status: r.status,
      bytes: r.status === 0 ? Number(outputOf<number | bigint>(r, 'sizeInBytes')) : 0,
    };
  }

  #pass(
    algo: number,
    name: string,
    conv: LegacyDescriptor,
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
    const [a, b, out] = this.#ordered(pass);
    const call = PASS_SPEC[pass].legacy.algorithms;
    const r = cudnn[call](this.#scope.handle.handle, a, b, conv, out, 8);
    check(r.status, call, `${problem} ${pass}`);
    const perfs = (r.perfResults ?? outputOf<LegacyPerf[]>(r, 'perfResults')) as LegacyPerf[];
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
    ptr: Readonly<Record<Role, bigint>>,
    ws: bigint,
    alpha: number,
    beta: number,
  ): void {
    const descs = this.#descriptors();
    const { legacy, name: what } = PASS_SPEC[pass];
    const [a, b, out] = legacy.order;
    lp.alphaBuf[0] = alpha;
    lp.betaBuf[0] = beta;
    const call = legacy.run;
    const status = cudnn[call](
      handle,
      lp.alphaBuf,
      descs[a],
      ptr[a],
      descs[b],
      ptr[b],
      lp.conv,
      lp.algo,
      ws,
      lp.workspaceBytes,
      lp.betaBuf,
      descs[out],
      ptr[out],
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
