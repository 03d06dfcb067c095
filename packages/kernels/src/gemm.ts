/**
 * The patch-embedding route's inner 1×1×1 convolution as matrix products (the math; exec/lt-gemm.ts
 * runs it on cuBLASLt). Matrices are row-major, `[rows, cols]` with a leading dimension; a pass is
 * one product D = alpha·op(A)·op(B) + beta·D over the inner problem's tensors (P = N·S positions, S
 * the inner spatial size, C' its channels, K = cOut):
 *
 * - NDHWC (x `[P, C']`, w `[K, C']`, y `[P, K]`): fw y = x·wᵀ; bwData dx = dy·w; bwFilter dw = dyᵀ·x.
 * - NCDHW (x `[N][C', S]`, y `[N][K, S]`): fw y_n = w·x_n and bwData dx_n = wᵀ·dy_n, batched over
 *   n (w shared: batch stride 0); bwFilter dw = Σ_n dy_n·x_nᵀ, one product over k = N·S once dy
 *   and x are permuted to `[K, N·S]` and `[C', N·S]` (a batch of one needs no permutation).
 */
import type { Conv3dDescriptor } from './descriptor.js';
import type { GatherMap } from './space-to-depth.js';

/** A pass of the inner problem (core/pass.ts's Conv3dPass; a leaf names it itself). */
export type GemmPass = 'fw' | 'bwData' | 'bwFilter';

/** One stored row-major matrix operand of a product. */
export interface GemmOperand {
  /** Which inner tensor it is (permuted: its `[rows, N·S]` copy in plan scratch). */
  readonly tensor: 'x' | 'w' | 'y';
  readonly rows: number;
  readonly cols: number;
  readonly ld: number;
  readonly trans: boolean;
  /** Elements between the matrices of a batch (0: the same matrix for every batch). */
  readonly batchStride: number;
}

/** A product D[m, n] = alpha·op(A)[m, k]·op(B)[k, n] + beta·D, `batch` times. */
export interface GemmSpec {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly batch: number;
  readonly a: GemmOperand;
  readonly b: GemmOperand;
  readonly d: Omit<GemmOperand, 'trans'>;
  /** Operands read through a permuted copy (`[N][R][S]` → `[R][N][S]`), with its map. */
  readonly permute: readonly { readonly tensor: 'x' | 'y'; readonly map: GatherMap }[];
}

const operand = (
  tensor: GemmOperand['tensor'],
  rows: number,
  cols: number,
  trans = false,
  batchStride = 0,
): GemmOperand => ({ tensor, rows, cols, ld: cols, trans, batchStride });

/** `[N][R][S]` → `[R][N][S]` as a gather (8 dims, the kernel's fixed rank; no spatial axis). */
export function permuteMap(n: number, r: number, s: number): GatherMap {
  const dims = [1, 1, 1, 1, 1, r, n, s];
  return {
    dims,
    strides: [0, 0, 0, 0, 0, s, r * s, 1],
    axis: [-1, -1, -1, -1, -1, -1, -1, -1],
    mul: [0, 0, 0, 0, 0, 0, 0, 0],
    pad: [0, 0, 0],
    extent: [1, 1, 1],
    base: 0,
    total: n * r * s,
  };
}

/** The product that runs `pass` of the 1×1×1 problem `inner`. */
export function gemmSpec(inner: Conv3dDescriptor, pass: GemmPass): GemmSpec {
  const n = inner.batch;
  const c = inner.cIn;
  const kOut = inner.cOut;
  const s = inner.dIn * inner.hIn * inner.wIn;
  const p = n * s;
  if (inner.layout === 'ndhwc') {
    const d = (rows: number, cols: number, tensor: GemmOperand['tensor']) => ({
      tensor,
      rows,
      cols,
      ld: cols,
      batchStride: 0,
    });
    if (pass === 'fw') {
      return {
        m: p,
        n: kOut,
        k: c,
        batch: 1,
        a: operand('x', p, c),
        b: operand('w', kOut, c, true),
        d: d(p, kOut, 'y'),
        permute: [],
      };
    }
    if (pass === 'bwData') {
      return {
        m: p,
        n: c,
        k: kOut,
        batch: 1,
        a: operand('y', p, kOut),
        b: operand('w', kOut, c),
        d: d(p, c, 'x'),
        permute: [],
      };
    }
    return {
      m: kOut,
      n: c,
      k: p,
      batch: 1,
      a: operand('y', p, kOut, true),
      b: operand('x', p, c),
      d: d(kOut, c, 'w'),
      permute: [],
    };
  }
  if (pass === 'fw') {
    return {
      m: kOut,
      n: s,
      k: c,
      batch: n,
      a: operand('w', kOut, c),
      b: operand('x', c, s, false, c * s),
      d: { tensor: 'y', rows: kOut, cols: s, ld: s, batchStride: kOut * s },
      permute: [],
    };
  }
  if (pass === 'bwData') {
    return {
      m: c,
      n: s,
      k: kOut,
      batch: n,
      a: operand('w', kOut, c, true),
      b: operand('y', kOut, s, false, kOut * s),
      d: { tensor: 'x', rows: c, cols: s, ld: s, batchStride: c * s },
      permute: [],
    };
  }
  const permute =
    n === 1
      ? []
      : [
          { tensor: 'y' as const, map: permuteMap(n, kOut, s) },
          { tensor: 'x' as const, map: permuteMap(n, c, s) },
        ];
  return {
    m: kOut,
    n: c,
    k: p,
    batch: 1,
    a: operand('y', kOut, p),
    b: operand('x', c, p, true),
    d: { tensor: 'w', rows: kOut, cols: c, ld: c, batchStride: 0 },
    permute,
  };
}
