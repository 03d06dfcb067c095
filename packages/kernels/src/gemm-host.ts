/**
 * A {@link GemmSpec} on the host, as the fake cuBLASLt (packages/cublaslt-sys/native/testing/
 * fake_cublaslt.c) computes it: f32 accumulation in ascending k, one rounding per term and per sum
 * (never fused), then alpha·acc (+ beta·D when beta is not 0), rounded once to the element kind; f64
 * throughout for f64. Operands are plain numbers (f16/bf16 already widened); `round` narrows a
 * result to the output's kind. For tests and the route's host emulation.
 */
import type { GemmOperand, GemmSpec } from './gemm.js';
import { gatherHost } from './space-to-depth-host.js';

type Elements = { length: number; [i: number]: number };

function at(
  o: Pick<GemmOperand, 'ld' | 'trans' | 'batchStride'>,
  batch: number,
  i: number,
  j: number,
) {
  // Element (i, j) of op(o): stored (j, i) when transposed.
  return batch * o.batchStride + (o.trans ? j * o.ld + i : i * o.ld + j);
}

/** d ← alpha·op(a)·op(b) + beta·d per `spec`, in f32 (`wide`: f64), each result through `round`. */
export function gemmHost(
  spec: GemmSpec,
  a: Elements,
  b: Elements,
  d: Elements,
  alpha: number,
  beta: number,
  wide: boolean,
  round: (v: number) => number,
): void {
  const r = wide ? (v: number) => v : Math.fround;
  const al = r(alpha);
  const be = r(beta);
  const dOp = { ...spec.d, trans: false };
  for (let batch = 0; batch < spec.batch; batch++) {
    for (let i = 0; i < spec.m; i++) {
      for (let j = 0; j < spec.n; j++) {
        let acc = 0;
        for (let p = 0; p < spec.k; p++) {
          acc = r(acc + r(a[at(spec.a, batch, i, p)]! * b[at(spec.b, batch, p, j)]!));
        }
        let out = r(al * acc);
        const o = at(dOp, batch, i, j);
        if (beta !== 0) out = r(out + r(be * d[o]!));
        d[o] = round(out);
      }
    }
  }
}

/**
 * The inner 1×1×1 problem's `pass` as the cuBLASLt route runs it: the permutes (gatherHost, as our
 * kernel moves elements) then the product, on `ops` (its x, w, y; the output is overwritten as
 * alpha·pass + beta·output).
 */
export function innerGemmHost<T extends Elements>(
  spec: GemmSpec,
  ops: Record<'x' | 'w' | 'y', T>,
  alpha: number,
  beta: number,
  wide: boolean,
  round: (v: number) => number,
  make: (length: number) => T,
): void {
  const t: Record<'x' | 'w' | 'y', T> = { ...ops };
  for (const { tensor, map } of spec.permute) {
    t[tensor] = gatherHost(t[tensor], make(map.total), map);
  }
  gemmHost(spec, t[spec.a.tensor], t[spec.b.tensor], ops[spec.d.tensor], alpha, beta, wide, round);
}
