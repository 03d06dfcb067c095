/**
 * The space-to-depth transforms on our own kernels (cuda/space-to-depth.cu, shipped as PTX in
 * space-to-depth-ptx.ts, compiled by the driver at first use, once per device and process).
 * @internal
 */
import { ElementKind } from '@baracuda/types';
import { fastDivisor } from './fast-division.js';
import {
  rememberedInverseAsGather,
  rememberedVectorGather,
  type VectorGather,
} from './gather-vector.js';
import { type ModuleLoader, perDevice } from './module-cache.js';
import type { GatherMap, InverseMap, InverseMode } from './space-to-depth.js';
import { SPACE_TO_DEPTH_PTX, SPACE_TO_DEPTH_SASS } from './space-to-depth-ptx.js';
import {
  type DeviceLike,
  driver,
  type KernelFunctionLike,
  type KernelParamsLike,
  type StreamLike,
} from './sys.js';

const BLOCK = 256;
/** The grid stops here; its threads loop over the rest. */
const MAX_BLOCKS = 2 ** 20;
const SIZES = [2, 4, 8] as const;
/** The vector kernels: element bytes by vector bytes (at least two elements a vector). */
const VECTORS: readonly (readonly [number, number])[] = [
  [2, 4],
  [2, 8],
  [2, 16],
  [4, 8],
  [4, 16],
  [8, 16],
];
/** The inverse's element kind code for its one arithmetic (scaling an uncovered position). */
const KIND_CODE: Partial<Record<ElementKind, number>> = {
  [ElementKind.F32]: 0,
  [ElementKind.F64]: 1,
  [ElementKind.F16]: 2,
  [ElementKind.Bf16]: 3,
};

/** A signed 64-bit field (`long long`) for KernelParams, which packs unsigned ones. */
function i64(v: number): number | bigint {
  return v < 0 ? BigInt.asUintN(64, BigInt(v)) : v;
}

function grid(total: number): [number, number, number] {
  return [Math.max(1, Math.min(Math.ceil(total / BLOCK), MAX_BLOCKS)), 1, 1];
}

/** The transform kernels loaded on one device. */
export class SpaceToDepthKernels {
  readonly #gather: Record<number, KernelFunctionLike>;
  readonly #inverse: Record<number, KernelFunctionLike>;
  /** The vector gathers, keyed `${elementBytes}:${vectorBytes}`. */
  readonly #vector: Record<string, KernelFunctionLike>;
  /** in, out, then the map struct: 8-byte fields (GatherMap 392 bytes, InverseMap 336). */
  readonly #params: KernelParamsLike = new driver.KernelParams(16 + 392);

  private constructor(
    gather: Record<number, KernelFunctionLike>,
    inverse: Record<number, KernelFunctionLike>,
    vector: Record<string, KernelFunctionLike>,
  ) {
    this.#gather = gather;
    this.#inverse = inverse;
    this.#vector = vector;
  }

  /**
   * Enqueue `dst = gather(src)` on `stream` (see {@link GatherMap}). By default in vectors where
   * the map allows it (gather-vector.ts), else each thread moving 4 consecutive elements of
   * dst. `perThread` (1-4) forces the element kernel at that count: one index decomposition per
   * thread, the rest stepped (run 75, H200: VideoMAE's f16 patch gather 0.292 ms at 1 a thread,
   * 0.188 at 2 and 0.136 at 4; the I3D stem's 0.681, 0.430 and 0.318 ms).
   */
  gather(
    stream: StreamLike,
    src: bigint,
    dst: bigint,
    map: GatherMap,
    elementBytes: number,
    perThread?: number,
  ): void {
    if (perThread === undefined) {
      const vector = rememberedVectorGather(map, elementBytes, src, dst);
      if (vector !== null) {
        this.gatherVector(stream, src, dst, vector, elementBytes);
        return;
      }
    }
    const per = perThread ?? 4;
    if (!Number.isInteger(per) || per < 1 || per > 4)
      throw new RangeError(`A gather thread moves 1 to 4 elements, not ${per}`);
    if (map.total === 0) return;
    const p = this.#params.reset().ptr(src).ptr(dst);
    for (const v of map.dims) p.u64(v);
    for (const v of map.strides) p.u64(i64(v));
    for (const v of map.axis) p.u64(i64(v));
    for (const v of map.mul) p.u64(v);
    for (const v of map.pad) p.u64(v);
    for (const v of map.extent) p.u64(v);
    p.u64(i64(map.base)).u64(map.total);
    // The dims' magic numbers for the kernel's fast division (see fast-division.ts).
    for (const v of map.dims) p.u64(fastDivisor(v));
    p.u64(per);
    this.#fn(this.#gather, elementBytes).launch(
      stream,
      grid(Math.ceil(map.total / per)),
      [BLOCK, 1, 1],
      0,
      p.bytes(),
    );
  }

  /** Enqueue the vector gather `plan` (gather-vector.ts, for these pointers) on `stream`. */
  gatherVector(
    stream: StreamLike,
    src: bigint,
    dst: bigint,
    plan: VectorGather,
    elementBytes: number,
  ): void {
    const fn = this.#vector[`${elementBytes}:${plan.vectorBytes}`];
    if (fn === undefined) {
      throw new RangeError(
        `No vector gather of ${plan.vectorBytes} bytes for ${elementBytes}-byte elements`,
      );
    }
    if (plan.total === 0) return;
    const p = this.#params.reset().ptr(src).ptr(dst);
    for (const v of plan.dims) p.u64(v);
    for (const v of plan.strides) p.u64(v);
    for (const v of plan.outStrides) p.u64(v);
    p.u64(plan.base).u64(plan.total);
    for (const v of plan.dims) p.u64(fastDivisor(v));
    p.u64(plan.vstride);
    fn.launch(stream, grid(plan.total), [BLOCK, 1, 1], 0, p.bytes());
  }

  /**
   * Enqueue `dst = inverse(src)` on `stream` (see {@link InverseMap}), uncovered positions per
   * `mode`; where the map covers every position, as a vector gather unless `vector` is false.
   */
  inverse(
    stream: StreamLike,
    src: bigint,
    dst: bigint,
    map: InverseMap,
    mode: InverseMode,
    beta: number,
    element: ElementKind,
    elementBytes: number,
    vector = true,
  ): void {
    if (map.total === 0) return;
    // Covering every position, the inverse is a permutation: a gather, in vectors where it can.
    const asGather = vector ? rememberedInverseAsGather(map) : null;
    const plan = asGather && rememberedVectorGather(asGather, elementBytes, src, dst);
    if (plan) {
      this.gatherVector(stream, src, dst, plan, elementBytes);
      return;
    }
    const p = this.#params.reset().ptr(src).ptr(dst);
    for (const v of map.dims) p.u64(v);
    for (const v of map.strides) p.u64(v);
    for (const v of map.axis) p.u64(i64(v));
    for (const group of [map.pad, map.block, map.count, map.blockStride, map.phaseStride]) {
      for (const v of group) p.u64(v);
    }
    p.u64(map.total)
      .u64(mode)
      .u64(KIND_CODE[element] ?? 0)
      .f64(beta);
    for (const v of map.dims) p.u64(fastDivisor(v));
    for (const v of map.block) p.u64(fastDivisor(v));
    this.#fn(this.#inverse, elementBytes).launch(
      stream,
      grid(map.total),
      [BLOCK, 1, 1],
      0,
      p.bytes(),
    );
  }

  #fn(fns: Record<number, KernelFunctionLike>, elementBytes: number): KernelFunctionLike {
    const fn = fns[elementBytes];
    if (fn === undefined)
      throw new RangeError(`No space-to-depth kernel for ${elementBytes}-byte elements`);
    return fn;
  }

  static readonly #perDevice = new Map<number, SpaceToDepthKernels | Error>();

  /**
   * The kernels on `device`, loaded once per process; the Error when they cannot load there.
   * `load` is the module loader (tests pass their own).
   */
  static forDevice(device: DeviceLike, load?: ModuleLoader): SpaceToDepthKernels | Error {
    return perDevice(
      SpaceToDepthKernels.#perDevice,
      device,
      { unit: 'space-to-depth', ptx: SPACE_TO_DEPTH_PTX, sass: SPACE_TO_DEPTH_SASS },
      load,
      (module) => {
        const named = (kind: string) =>
          Object.fromEntries(
            SIZES.map((b) => [b, module.getFunction(`baracuda_s2d_${kind}_b${b * 8}`)]),
          );
        const vector = Object.fromEntries(
          VECTORS.map(([e, v]) => [
            `${e}:${v}`,
            module.getFunction(`baracuda_s2d_gather_b${e * 8}_v${v}`),
          ]),
        );
        return new SpaceToDepthKernels(named('gather'), named('inverse'), vector);
      },
    );
  }

  /** @internal Forget loaded modules (tests). */
  static resetForTests(): void {
    SpaceToDepthKernels.#perDevice.clear();
  }
}
