/**
 * The operation graph of a forward pass with its epilogue fused: the convolution into a virtual
 * tensor, then pointwise nodes — ADD of the bias ([1, C, 1, 1, 1], broadcast), ADD of the residual
 * z, the activation's *_FWD mode — each into a virtual tensor but the last, which is y. Virtual
 * tensors are f32 (f64 for f64). Which activations cuDNN's pointwise modes take as we define them:
 * {@link FUSED_MODES}; the rest (leakyRelu, clamp) run unfused.
 */
import { ElementKind } from '@baracuda/types';
import type { Conv3dDescriptor } from '../descriptor.js';
import type { EpilogueActivation } from '../epilogue/epilogue.js';
import { type BackendDescriptor, C, type ConstantName, cudnn } from '../sys.js';
import { convolution, tensorDesc } from './operation-graph.js';
import type { CudnnScope } from './scope.js';
import { check } from './status.js';

export const FUSED_UID = { x: 1n, w: 2n, y: 3n, bias: 4n, z: 5n } as const;
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

/** Whether the fused graph can express the descriptor's epilogue. */
export function fusable(d: Conv3dDescriptor): boolean {
  return FUSED_MODES[d.epilogue.activation] !== undefined;
}

function virtualTensor(
  scope: CudnnScope,
  d: Conv3dDescriptor,
  uid: bigint,
  align: number,
): BackendDescriptor {
  const t = scope.createBackend(C.CUDNN_BACKEND_TENSOR_DESCRIPTOR, 'tensor');
  const i64 = C.CUDNN_TYPE_INT64;
  const type = d.element === ElementKind.F64 ? C.CUDNN_DATA_DOUBLE : C.CUDNN_DATA_FLOAT;
  scope.set(t, C.CUDNN_ATTR_TENSOR_DATA_TYPE, C.CUDNN_TYPE_DATA_TYPE, new Int32Array([type]));
  scope.set(t, C.CUDNN_ATTR_TENSOR_DIMENSIONS, i64, BigInt64Array.from(d.yShape, BigInt));
  scope.set(t, C.CUDNN_ATTR_TENSOR_STRIDES, i64, BigInt64Array.from(d.yStrides, BigInt));
  scope.set(t, C.CUDNN_ATTR_TENSOR_UNIQUE_ID, i64, new BigInt64Array([uid]));
  scope.set(t, C.CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, i64, new BigInt64Array([BigInt(align)]));
  scope.set(t, C.CUDNN_ATTR_TENSOR_IS_VIRTUAL, C.CUDNN_TYPE_BOOLEAN, new Uint8Array([1]));
  check(cudnn.cudnnBackendFinalize(t), 'cudnnBackendFinalize', `${scope.problem} (virtual ${uid})`);
  return t;
}

/**
 * Build the fused forward graph of `d` (its epilogue fusable, beta 0). Returns the graph, every
 * descriptor made, and the uids its variant packs bind, in order.
 */
export function fusedForwardGraph(
  scope: CudnnScope,
  d: Conv3dDescriptor,
  alpha: number,
  align: number,
): { graph: BackendDescriptor; parts: BackendDescriptor[]; uids: bigint[] } {
  const parts: BackendDescriptor[] = [];
  const made = (x: BackendDescriptor) => {
    parts.push(x);
    return x;
  };
  const e = d.epilogue;
  const f64 = d.element === ElementKind.F64;
  const desc = C.CUDNN_TYPE_BACKEND_DESCRIPTOR;
  const finalize = (x: BackendDescriptor, what: string) =>
    check(cudnn.cudnnBackendFinalize(x), 'cudnnBackendFinalize', `${scope.problem} fw (${what})`);
  try {
    const x = made(tensorDesc(scope, d, FUSED_UID.x, d.xShape, d.xStrides, align));
    const w = made(tensorDesc(scope, d, FUSED_UID.w, d.wShape, d.wStrides, align));
    const y = made(tensorDesc(scope, d, FUSED_UID.y, d.yShape, d.yStrides, align));
    const uids: bigint[] = [FUSED_UID.x, FUSED_UID.w, FUSED_UID.y];
    // The nodes after the convolution: [mode, second input or null].
    const nodes: [ConstantName, BackendDescriptor | null][] = [];
    if (e.bias) {
      const c = d.cOut;
      const shape = [1, c, 1, 1, 1];
      const strides = d.layout === 'ncdhw' ? [c, 1, 1, 1, 1] : [c, 1, c, c, c];
      const bias = made(tensorDesc(scope, d, FUSED_UID.bias, shape, strides, align));
      nodes.push(['CUDNN_POINTWISE_ADD', bias]);
      uids.push(FUSED_UID.bias);
    }
    if (e.residual) {
      const z = made(tensorDesc(scope, d, FUSED_UID.z, d.yShape, d.yStrides, align));
      nodes.push(['CUDNN_POINTWISE_ADD', z]);
      uids.push(FUSED_UID.z);
    }
    const mode = FUSED_MODES[e.activation];
    if (mode) nodes.push([mode, null]);
    const conv = made(convolution(scope, d));
    const scaleType = f64 ? C.CUDNN_TYPE_DOUBLE : C.CUDNN_TYPE_FLOAT;
    const scale = (v: number) => (f64 ? new Float64Array([v]) : new Float32Array([v]));
    let next = VIRTUAL_UID;
    let into = nodes.length === 0 ? y : made(virtualTensor(scope, d, next++, align));
    const op = made(
      scope.createBackend(C.CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, 'forward op'),
    );
    scope.set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, desc, [x]);
    scope.set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, desc, [w]);
    scope.set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, desc, [into]);
    scope.set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, desc, [conv]);
    scope.set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, scaleType, scale(alpha));
    scope.set(op, C.CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, scaleType, scale(0));
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
      if (name === 'CUDNN_POINTWISE_SWISH_FWD') {
        scope.set(
          pw,
          C.CUDNN_ATTR_POINTWISE_SWISH_BETA,
          C.CUDNN_TYPE_DOUBLE,
          new Float64Array([1]),
        );
      }
      finalize(pw, 'pointwise');
      const input = into;
      into = i === nodes.length - 1 ? y : made(virtualTensor(scope, d, next++, align));
      const node = made(
        scope.createBackend(C.CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, 'pointwise op'),
      );
      scope.set(node, C.CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, desc, [pw]);
      scope.set(node, C.CUDNN_ATTR_OPERATION_POINTWISE_XDESC, desc, [input]);
      if (second !== null) scope.set(node, C.CUDNN_ATTR_OPERATION_POINTWISE_BDESC, desc, [second]);
      scope.set(node, C.CUDNN_ATTR_OPERATION_POINTWISE_YDESC, desc, [into]);
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
