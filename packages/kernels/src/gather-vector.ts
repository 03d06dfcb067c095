/**
 * The space-to-depth gather in vectors (cuda/space-to-depth.cu's `gatherVector`): where no
 * coordinate of a {@link GatherMap} can leave the tensor (a patch fold, the backward-filter
 * permutes, an inverse that covers every position), the map is a plain permutation of strided
 * dims. Adjacent dims whose in elements follow each other merge; the one whose in stride is 1
 * becomes the vector's, and each thread moves V of its elements with one load (and one store
 * where they are adjacent in out too, else V stores V·vstride apart), paying one index
 * decomposition per V elements instead of per element (run 75: the scalar gather moved VideoMAE's
 * f16 patch at 569 GB/s, 13% of the H200's copy bandwidth).
 * @internal
 */
import type { GatherMap, InverseMap } from './space-to-depth.js';

/** A vector gather's launch: cuda/space-to-depth.cu's VecGatherMap, and the kernel's vector. */
export interface VectorGather {
  /** The out index space, outermost first (8 dims), the vector's dim counted in vectors. */
  readonly dims: readonly number[];
  /** In elements per step of each index. */
  readonly strides: readonly number[];
  /** Out elements per step of each index. */
  readonly outStrides: readonly number[];
  readonly base: number;
  /** Vectors. */
  readonly total: number;
  /** Out elements between a vector's elements (1: the vector is stored whole). */
  readonly vstride: number;
  /** Bytes a vector (4, 8 or 16; at least two elements). */
  readonly vectorBytes: 4 | 8 | 16;
}

const RANK = 8;
const VECTOR_BYTES = [16, 8, 4] as const;

/** Whether every coordinate the map reads lies inside the tensor (no zero fill, no clipping). */
export function neverLeaves(map: GatherMap): boolean {
  for (let a = 0; a < 3; a++) {
    let hi = -map.pad[a]!;
    for (let k = 0; k < map.dims.length; k++) {
      if (map.axis[k] === a) hi += (map.dims[k]! - 1) * map.mul[k]!;
    }
    if (map.pad[a]! > 0 || hi >= map.extent[a]!) return false;
  }
  return true;
}

interface Dim {
  dim: number;
  in: number;
  out: number;
}

/**
 * The map as a vector gather of `elementBytes` elements from `src` to `dst` (device addresses:
 * their alignment picks the vector), or null where none applies: a coordinate may leave the
 * tensor, no in dim is contiguous, or no vector of at least two elements divides the run and
 * every other stride and is aligned at both ends.
 */
export function vectorGather(
  map: GatherMap,
  elementBytes: number,
  src: bigint,
  dst: bigint,
): VectorGather | null {
  if (map.total === 0 || !neverLeaves(map)) return null;
  // Out is dense, outermost first; dims of 1 step nothing.
  const dims: Dim[] = [];
  let out = 1;
  for (let k = map.dims.length - 1; k >= 0; k--) {
    const dim = map.dims[k]!;
    if (dim > 1) dims.unshift({ dim, in: map.strides[k]!, out });
    out *= dim;
  }
  // Merge a dim into the next inner one where its in elements continue that one's.
  const merged: Dim[] = [];
  for (let k = dims.length - 1; k >= 0; k--) {
    const d = dims[k]!;
    const inner = merged[0];
    if (inner !== undefined && d.in === inner.dim * inner.in && d.out === inner.dim * inner.out) {
      inner.dim *= d.dim;
    } else {
      merged.unshift({ ...d });
    }
  }
  // The innermost (in out's order) dim whose in elements are contiguous.
  let vdim = merged.length - 1;
  while (vdim >= 0 && merged[vdim]!.in !== 1) vdim--;
  if (vdim < 0) return null;
  const run = merged[vdim]!;
  for (const vectorBytes of VECTOR_BYTES) {
    const v = vectorBytes / elementBytes;
    if (!Number.isInteger(v) || v < 2) continue;
    if (run.dim % v !== 0 || map.base % v !== 0) continue;
    if (merged.some((d, k) => k !== vdim && d.in % v !== 0)) continue;
    const whole = run.out === 1;
    const b = BigInt(vectorBytes);
    if (src % b !== 0n || (whole && dst % b !== 0n)) continue;
    const lead = RANK - merged.length;
    const pick = (f: (d: Dim, k: number) => number, fill: number) => [
      ...Array.from({ length: lead }, () => fill),
      ...merged.map(f),
    ];
    return {
      dims: pick((d, k) => (k === vdim ? d.dim / v : d.dim), 1),
      strides: pick((d, k) => (k === vdim ? v : d.in), 0),
      outStrides: pick((d, k) => (k === vdim ? v * d.out : d.out), 0),
      base: map.base,
      total: map.total / v,
      vstride: run.out,
      vectorBytes,
    };
  }
  return null;
}

const PLANS = new WeakMap<GatherMap, Map<string, VectorGather | null>>();

/**
 * {@link vectorGather}, planned once per map, element size and pointer alignment (each pointer
 * modulo 16, all the plan reads of it) and then remembered: the transforms run on every call of
 * a route, and planning took 1.4 µs a call on the CI machine (VideoMAE's fold), a tenth of a
 * call's whole host overhead. The maps are a route's, made once and never changed.
 */
export function rememberedVectorGather(
  map: GatherMap,
  elementBytes: number,
  src: bigint,
  dst: bigint,
): VectorGather | null {
  let plans = PLANS.get(map);
  if (plans === undefined) {
    plans = new Map();
    PLANS.set(map, plans);
  }
  const key = `${elementBytes}:${src % 16n}:${dst % 16n}`;
  let plan = plans.get(key);
  if (plan === undefined) {
    plan = vectorGather(map, elementBytes, src, dst);
    plans.set(key, plan);
  }
  return plan;
}

const AS_GATHER = new WeakMap<InverseMap, GatherMap | null>();

/** {@link inverseAsGather}, made once per map and remembered (see {@link rememberedVectorGather}). */
export function rememberedInverseAsGather(map: InverseMap): GatherMap | null {
  let gather = AS_GATHER.get(map);
  if (gather === undefined) {
    gather = inverseAsGather(map);
    AS_GATHER.set(map, gather);
  }
  return gather;
}

/**
 * An inverse that covers every position of the original tensor, as the gather it then is: each
 * spatial dim of out split into its block and phase (outermost first, so out stays dense), each
 * reading the transformed tensor at the block's and the phase's stride. Null where the inverse
 * leaves some position uncovered (its mode then matters), where an axis is padded, or where the
 * split dims would not fit the gather's 8.
 */
export function inverseAsGather(map: InverseMap): GatherMap | null {
  if (map.partial) return null;
  const dims: number[] = [];
  const strides: number[] = [];
  for (let k = 0; k < map.dims.length; k++) {
    const a = map.axis[k]!;
    if (a < 0) {
      dims.push(map.dims[k]!);
      strides.push(map.strides[k]!);
      continue;
    }
    // Covered and unpadded: s = j·block + φ exactly (a padded axis may not start at a block).
    if (map.pad[a] !== 0 || map.count[a]! * map.block[a]! !== map.dims[k]) return null;
    dims.push(map.count[a]!, map.block[a]!);
    strides.push(map.blockStride[a]!, map.phaseStride[a]!);
  }
  if (dims.length > RANK) return null;
  const lead = RANK - dims.length;
  const fill = (v: number[], with_: number) => [...Array(lead).fill(with_), ...v];
  return {
    dims: fill(dims, 1),
    strides: fill(strides, 0),
    axis: Array(RANK).fill(-1),
    mul: Array(RANK).fill(0),
    pad: [0, 0, 0],
    extent: [1, 1, 1],
    base: 0,
    total: map.total,
  };
}
