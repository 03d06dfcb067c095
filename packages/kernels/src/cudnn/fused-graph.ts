/**
 * The operation graph of a pass with what follows it fused (a "tail"), its output being the pass's
 * output (y of the forward pass, x of backward-data):
 * - an epilogue: the convolution into a virtual tensor, then pointwise nodes — ADD of the bias
 *   ([1, C, 1, 1, 1], broadcast), ADD of the residual z, the activation's *_FWD mode — each into a
 *   virtual tensor but the last, which is the output ({@link FUSED_MODES}; leakyRelu and clamp run
 *   unfused);
 * - an activation's backward: the convolution into a virtual tensor (the incoming gradient), then
 *   one *_BWD node reading the saved tensor ({@link BWD_MODES}: relu from its output, gelu,
 *   geluTanh and silu from the pre-activation; the rest run unfused).
 * Virtual tensors are f32 (f64 for f64).
 */
import { ElementKind } from '@baracuda/types';
import { type Conv3dPass, PASS_SPEC } from '../core/pass.js';
import type { Conv3dDescriptor } from '../descriptor.js';
import type { Epilogue, EpilogueActivation } from '../epilogue/epilogue.js';
import { type BackendDescriptor, C, type ConstantName, cudnn } from '../sys.js';
import { convolution, tensorDesc } from './operation-graph.js';
import type { CudnnScope } from './scope.js';
import { check } from './status.js';

export const FUSED_UID = { x: 1n, w: 2n, y: 3n, bias: 4n, z: 5n, saved: 6n } as const;
const VIRTUAL_UID = 100n;

/** The pointwise mode of each activation the fused graph takes (identity adds no node). */
export const FUSED_MODES: Partial<Record<EpilogueActivation, ConstantName | null>> = {
  identity: null,
  relu: 'CUDNN_POINTWISE_RELU_FWD',
  gelu: 'CUDNN_POINTWISE_GELU_FWD',
  geluTanh: 'CUDNN_POINTWISE_GELU_APPROX_TANH_FWD',
  silu: 'CUDNN_POINTWISE_SWISH_FWD',
  sigmoid: 'CUDNN_POINTWISE_SIGMOID_FWD',
  tanh: 'CUDNN_POINTWISE_TANH_FWD',
};

/**
 * The pointwise backward mode of each activation whose cuDNN mode reads what we keep: relu_bwd
 * (dx = dy where the saved value > 0) from the output, the others from the pre-activation.
 */
export const BWD_MODES: Partial<Record<EpilogueActivation, ConstantName>> = {
  relu: 'CUDNN_POINTWISE_RELU_BWD',
  gelu: 'CUDNN_POINTWISE_GELU_BWD',
  geluTanh: 'CUDNN_POINTWISE_GELU_APPROX_TANH_BWD',
  silu: 'CUDNN_POINTWISE_SWISH_BWD',
};

/** What follows the convolution pass in a fused graph. */
export interface FusedTail {
  readonly kind: 'epilogue' | 'activationBackward';
  /** The convolution pass whose output the tail finishes: its x (bwData) or y (fw). */
  readonly pass: Conv3dPass;
  /** The epilogue, or the activation whose backward is applied. */
  readonly epilogue: Epilogue;
}

/** The forward pass's epilogue of `d`. */
export function forwardTail(d: Conv3dDescriptor): FusedTail {
  return { kind: 'epilogue', pass: 'fw', epilogue: d.epilogue };
}

/** Whether the fused graph can express the tail. */
export function fusable(tail: FusedTail | Conv3dDescriptor): boolean {
  const t = 'kind' in tail ? tail : forwardTail(tail);
  const a = t.epilogue.activation;
  return t.kind === 'epilogue' ? FUSED_MODES[a] !== undefined : BWD_MODES[a] !== undefined;
}

function virtualTensor(
  scope: CudnnScope,
  d: Conv3dDescriptor,
  uid: bigint,
  align: number,
  out: { shape: readonly number[]; strides: readonly number[] },
): BackendDescriptor {
  const t = scope.createBackend(C.CUDNN_BACKEND_TENSOR_DESCRIPTOR, 'tensor');
  const i64 = C.CUDNN_TYPE_INT64;
  const type = d.element === ElementKind.F64 ? C.CUDNN_DATA_DOUBLE : C.CUDNN_DATA_FLOAT;
  scope.set(t, C.CUDNN_ATTR_TENSOR_DATA_TYPE, C.CUDNN_TYPE_DATA_TYPE, new Int32Array([type]));
  scope.set(t, C.CUDNN_ATTR_TENSOR_DIMENSIONS, i64, BigInt64Array.from(out.shape, BigInt));
  scope.set(t, C.CUDNN_ATTR_TENSOR_STRIDES, i64, BigInt64Array.from(out.strides, BigInt));
  scope.set(t, C.CUDNN_ATTR_TENSOR_UNIQUE_ID, i64, new BigInt64Array([uid]));
  scope.set(t, C.CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, i64, new BigInt64Array([BigInt(align)]));
  scope.set(t, C.CUDNN_ATTR_TENSOR_IS_VIRTUAL, C.CUDNN_TYPE_BOOLEAN, new Uint8Array([1]));
  check(cudnn.cudnnBackendFinalize(t), 'cudnnBackendFinalize', `${scope.problem} (virtual ${uid})`);
  return t;
}

/** Build the fused forward graph of `d` (its epilogue fusable, beta 0). */
export function fusedForwardGraph(
  scope: CudnnScope,
  d: Conv3dDescriptor,
  alpha: number,
  align: number,
): { graph: BackendDescriptor; parts: BackendDescriptor[]; uids: bigint[] } {
  return fusedGraph(scope, d, forwardTail(d), alpha, align);
}

/**
 * Build the fused graph of a pass of `d` and its tail (fusable, beta 0). Returns the graph, every
 * descriptor made, and the uids its variant packs bind, in order.
 */
export function fusedGraph(
  scope: CudnnScope,
  d: Conv3dDescriptor,
  tail: FusedTail,
  alpha: number,
  align: number,
): { graph: BackendDescriptor; parts: BackendDescriptor[]; uids: bigint[] } {
  const parts: BackendDescriptor[] = [];
  const made = (x: BackendDescriptor) => {
    parts.push(x);
    return x;
  };
  const e = tail.epilogue;
  const f64 = d.element === ElementKind.F64;
  const desc = C.CUDNN_TYPE_BACKEND_DESCRIPTOR;
  const finalize = (x: BackendDescriptor, what: string) =>
    check(
      cudnn.cudnnBackendFinalize(x),
      'cudnnBackendFinalize',
      `${scope.problem} ${tail.pass} (${what})`,
    );
  const toX = tail.pass === 'bwData';
  const out = toX
    ? { shape: d.xShape, strides: d.xStrides }
    : { shape: d.yShape, strides: d.yStrides };
  try {
    const x = made(tensorDesc(scope, d, FUSED_UID.x, d.xShape, d.xStrides, align));
    const w = made(tensorDesc(scope, d, FUSED_UID.w, d.wShape, d.wStrides, align));
    const y = made(tensorDesc(scope, d, FUSED_UID.y, d.yShape, d.yStrides, align));
    const output = toX ? x : y;
    const uids: bigint[] = [FUSED_UID.x, FUSED_UID.w, FUSED_UID.y];
    // The nodes after the convolution: [mode, second input or null]; a *_BWD node's second input
    // is the saved forward tensor.
    const nodes: [ConstantName, BackendDescriptor | null][] = [];
    if (tail.kind === 'activationBackward') {
      const mode = BWD_MODES[e.activation]!;
      const saved = made(tensorDesc(scope, d, FUSED_UID.saved, out.shape, out.strides, align));
      nodes.push([mode, saved]);
      uids.push(FUSED_UID.saved);
    }
    if (tail.kind === 'epilogue' && e.bias) {
      const c = out.shape[1]!;
      const shape = [1, c, 1, 1, 1];
      const strides = d.layout === 'ncdhw' ? [c, 1, 1, 1, 1] : [c, 1, c, c, c];
      const bias = made(tensorDesc(scope, d, FUSED_UID.bias, shape, strides, align));
      nodes.push(['CUDNN_POINTWISE_ADD', bias]);
      uids.push(FUSED_UID.bias);
    }
    if (tail.kind === 'epilogue' && e.residual) {
      const z = made(tensorDesc(scope, d, FUSED_UID.z, out.shape, out.strides, align));
      nodes.push(['CUDNN_POINTWISE_ADD', z]);
      uids.push(FUSED_UID.z);
    }
    const mode = tail.kind === 'epilogue' ? FUSED_MODES[e.activation] : undefined;
    if (mode) nodes.push([mode, null]);
    const conv = made(convolution(scope, d));
    const scaleType = f64 ? C.CUDNN_TYPE_DOUBLE : C.CUDNN_TYPE_FLOAT;
    const scale = (v: number) => (f64 ? new Float64Array([v]) : new Float32Array([v]));
    let next = VIRTUAL_UID;
    let into = nodes.length === 0 ? output : made(virtualTensor(scope, d, next++, align, out));
    const spec = PASS_SPEC[tail.pass].graph;
    const op = made(scope.createBackend(C[spec.op], spec.what));
    scope.set(op, C[spec.tensors.x], desc, [toX ? into : x]);
    scope.set(op, C[spec.tensors.w], desc, [w]);
    scope.set(op, C[spec.tensors.y], desc, [toX ? y : into]);
    scope.set(op, C[spec.conv], desc, [conv]);
    scope.set(op, C[spec.alpha], scaleType, scale(alpha));
    scope.set(op, C[spec.beta], scaleType, scale(0));
    finalize(op, 'operation');
    const ops = [op];
    for (const [i, [name, second]] of nodes.entries()) {
      const pw = made(scope.createBackend(C.CUDNN_BACKEND_POINTWISE_DESCRIPTOR, 'pointwise'));
      scope.set(
        pw,
        C.CUDNN_ATTR_POINTWISE_MODE,
        C.CUDNN_TYPE_POINTWISE_MODE,
        new Int32Array([C[name]]),
      );
      scope.set(
        pw,
        C.CUDNN_ATTR_POINTWISE_MATH_PREC,
        C.CUDNN_TYPE_DATA_TYPE,
        new Int32Array([f64 ? C.CUDNN_DATA_DOUBLE : C.CUDNN_DATA_FLOAT]),
      );
      if (name === 'CUDNN_POINTWISE_SWISH_FWD' || name === 'CUDNN_POINTWISE_SWISH_BWD') {
        scope.set(
          pw,
          C.CUDNN_ATTR_POINTWISE_SWISH_BETA,
          C.CUDNN_TYPE_DOUBLE,
          new Float64Array([1]),
        );
      }
      finalize(pw, 'pointwise');
      const input = into;
      into = i === nodes.length - 1 ? output : made(virtualTensor(scope, d, next++, align, out));
      const node = made(
        scope.createBackend(C.CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, 'pointwise op'),
      );
      scope.set(node, C.CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, desc, [pw]);
      if (tail.kind === 'activationBackward') {
        // dx = dy · act'(x): x the saved forward tensor, dy the convolution's result.
        scope.set(node, C.CUDNN_ATTR_OPERATION_POINTWISE_XDESC, desc, [second!]);
        scope.set(node, C.CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, desc, [input]);
        scope.set(node, C.CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, desc, [into]);
      } else {
        scope.set(node, C.CUDNN_ATTR_OPERATION_POINTWISE_XDESC, desc, [input]);
        if (second !== null) {
          scope.set(node, C.CUDNN_ATTR_OPERATION_POINTWISE_BDESC, desc, [second]);
        }
        scope.set(node, C.CUDNN_ATTR_OPERATION_POINTWISE_YDESC, desc, [into]);
      }
      finalize(node, 'pointwise op');
      ops.push(node);
    }
    const graph = made(
      scope.createBackend(C.CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 'operation graph'),
    );
    scope.set(graph, C.CUDNN_ATTR_OPERATIONGRAPH_HANDLE, C.CUDNN_TYPE_HANDLE, [
      scope.handle.handle,
    ]);
    scope.set(graph, C.CUDNN_ATTR_OPERATIONGRAPH_OPS, desc, ops);
    finalize(graph, 'fused operation graph');
    return { graph, parts, uids };
  } catch (error) {
    for (const p of parts) scope.destroyBackend(p);
    throw error;
  }
}

/** A finalized variant pack binding `uids` to `pointers`, and the workspace. */
export function fusedVariantPack(
  scope: CudnnScope,
  uids: readonly bigint[],
  pointers: readonly bigint[],
  ws: bigint,
): BackendDescriptor {
  const vp = scope.createBackend(C.CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 'variant pack');
  try {
    scope.set(
      vp,
      C.CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
      C.CUDNN_TYPE_INT64,
      BigInt64Array.from(uids),
    );
    scope.set(
      vp,
      C.CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
      C.CUDNN_TYPE_VOID_PTR,
      BigUint64Array.from(pointers),
    );
    scope.set(
      vp,
      C.CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
      C.CUDNN_TYPE_VOID_PTR,
      new BigUint64Array([ws]),
    );
    check(
      cudnn.cudnnBackendFinalize(vp),
      'cudnnBackendFinalize',
      `${scope.problem} (variant pack)`,
    );
  } catch (error) {
    scope.destroyBackend(vp);
    throw error;
  }
  return vp;
}
