/** The backend descriptors of one pass: its tensors, its one-node operation graph, variant packs. */
import { ElementKind } from '@baracuda/types';
import { type Conv3dPass, PASS_SPEC } from '../core/pass.js';
import type { Conv3dDescriptor } from '../descriptor.js';
import { type BackendDescriptor, C, cudnn, cudnnDataType } from '../sys.js';
import type { CudnnScope } from './scope.js';
import { check } from './status.js';

const UID_X = 1n;
const UID_W = 2n;
const UID_Y = 3n;

export function tensorDesc(
  scope: CudnnScope,
  desc: Conv3dDescriptor,
  uid: bigint,
  shape: readonly number[],
  strides: readonly number[],
  align: number,
): BackendDescriptor {
  const t = scope.createBackend(C.CUDNN_BACKEND_TENSOR_DESCRIPTOR, 'tensor');
  const i64 = C.CUDNN_TYPE_INT64;
  scope.set(
    t,
    C.CUDNN_ATTR_TENSOR_DATA_TYPE,
    C.CUDNN_TYPE_DATA_TYPE,
    new Int32Array([cudnnDataType(desc.element)]),
  );
  scope.set(t, C.CUDNN_ATTR_TENSOR_DIMENSIONS, i64, BigInt64Array.from(shape, BigInt));
  scope.set(t, C.CUDNN_ATTR_TENSOR_STRIDES, i64, BigInt64Array.from(strides, BigInt));
  scope.set(t, C.CUDNN_ATTR_TENSOR_UNIQUE_ID, i64, new BigInt64Array([uid]));
  scope.set(t, C.CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, i64, new BigInt64Array([BigInt(align)]));
  check(cudnn.cudnnBackendFinalize(t), 'cudnnBackendFinalize', `${scope.problem} (tensor ${uid})`);
  return t;
}

export function convolution(scope: CudnnScope, d: Conv3dDescriptor): BackendDescriptor {
  const conv = scope.createBackend(C.CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, 'convolution');
  const f64 = d.element === ElementKind.F64;
  const i64 = (a: number, b: number, c: number) =>
    new BigInt64Array([BigInt(a), BigInt(b), BigInt(c)]);
  const int64 = C.CUDNN_TYPE_INT64;
  scope.set(
    conv,
    C.CUDNN_ATTR_CONVOLUTION_COMP_TYPE,
    C.CUDNN_TYPE_DATA_TYPE,
    new Int32Array([f64 ? C.CUDNN_DATA_DOUBLE : C.CUDNN_DATA_FLOAT]),
  );
  scope.set(
    conv,
    C.CUDNN_ATTR_CONVOLUTION_CONV_MODE,
    C.CUDNN_TYPE_CONVOLUTION_MODE,
    new Int32Array([C.CUDNN_CROSS_CORRELATION]),
  );
  scope.set(conv, C.CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, int64, new BigInt64Array([3n]));
  scope.set(conv, C.CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, int64, i64(d.padD, d.padH, d.padW));
  // The trailing side: differs from the leading one for asymmetric or 'same' padding.
  scope.set(
    conv,
    C.CUDNN_ATTR_CONVOLUTION_POST_PADDINGS,
    int64,
    i64(d.padAfterD, d.padAfterH, d.padAfterW),
  );
  scope.set(
    conv,
    C.CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES,
    int64,
    i64(d.strideD, d.strideH, d.strideW),
  );
  scope.set(
    conv,
    C.CUDNN_ATTR_CONVOLUTION_DILATIONS,
    int64,
    i64(d.dilationD, d.dilationH, d.dilationW),
  );
  check(cudnn.cudnnBackendFinalize(conv), 'cudnnBackendFinalize', `${scope.problem} (convolution)`);
  return conv;
}

/** Build the one-node operation graph of a pass. Returns the graph and every descriptor made. */
export function operationGraph(
  scope: CudnnScope,
  d: Conv3dDescriptor,
  pass: Conv3dPass,
  alpha: number,
  beta: number,
  align: number,
): { graph: BackendDescriptor; parts: BackendDescriptor[] } {
  const spec = PASS_SPEC[pass].graph;
  const parts: BackendDescriptor[] = [];
  const made = (x: BackendDescriptor) => {
    parts.push(x);
    return x;
  };
  try {
    const x = made(tensorDesc(scope, d, UID_X, d.xShape, d.xStrides, align));
    const w = made(tensorDesc(scope, d, UID_W, d.wShape, d.wStrides, align));
    const y = made(tensorDesc(scope, d, UID_Y, d.yShape, d.yStrides, align));
    const conv = made(convolution(scope, d));
    const f64 = d.element === ElementKind.F64;
    const scaleType = f64 ? C.CUDNN_TYPE_DOUBLE : C.CUDNN_TYPE_FLOAT;
    const scale = (v: number) => (f64 ? new Float64Array([v]) : new Float32Array([v]));
    const desc = C.CUDNN_TYPE_BACKEND_DESCRIPTOR;
    const op = made(scope.createBackend(C[spec.op], spec.what));
    scope.set(op, C[spec.tensors.x], desc, [x]);
    scope.set(op, C[spec.tensors.w], desc, [w]);
    scope.set(op, C[spec.tensors.y], desc, [y]);
    scope.set(op, C[spec.conv], desc, [conv]);
    scope.set(op, C[spec.alpha], scaleType, scale(alpha));
    scope.set(op, C[spec.beta], scaleType, scale(beta));
    check(
      cudnn.cudnnBackendFinalize(op),
      'cudnnBackendFinalize',
      `${scope.problem} ${pass} (operation)`,
    );
    const graph = made(
      scope.createBackend(C.CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 'operation graph'),
    );
    scope.set(graph, C.CUDNN_ATTR_OPERATIONGRAPH_HANDLE, C.CUDNN_TYPE_HANDLE, [
      scope.handle.handle,
    ]);
    scope.set(graph, C.CUDNN_ATTR_OPERATIONGRAPH_OPS, desc, [op]);
    check(
      cudnn.cudnnBackendFinalize(graph),
      'cudnnBackendFinalize',
      `${scope.problem} ${pass} (operation graph)`,
    );
    return { graph, parts };
  } catch (error) {
    for (const p of parts) scope.destroyBackend(p);
    throw error;
  }
}

/** A finalized variant pack: the three operands (uid order x, w, y) and the workspace. */
export function variantPack(
  scope: CudnnScope,
  px: bigint,
  pw: bigint,
  py: bigint,
  ws: bigint,
): BackendDescriptor {
  const vp = scope.createBackend(C.CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 'variant pack');
  try {
    scope.set(
      vp,
      C.CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
      C.CUDNN_TYPE_INT64,
      new BigInt64Array([UID_X, UID_W, UID_Y]),
    );
    scope.set(
      vp,
      C.CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
      C.CUDNN_TYPE_VOID_PTR,
      new BigUint64Array([px, pw, py]),
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
