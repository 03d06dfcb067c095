/**
 * Depthwise convolution (groups = C_in = C_out, NCDHW or NDHWC) forward and backward-data on our
 * own kernels (cuda/depthwise.cu, shipped as PTX in depthwise-ptx.ts and compiled by the driver
 * at first use): Conv3dPlan's 'native' path. cuDNN has no fast kernel for these: on an H200 its
 * best engines took 2.2–2.4× PyTorch's own depthwise kernel on X3D's 3×3×3 layer in NCDHW
 * (forward) and 1.5× (backward-data), and ~1.4 ms in NDHWC f16/bf16, under 2% of the roofline.
 * Backward-filter runs on ours in both layouts, in two deterministic passes through the plan's
 * workspace (cuda/depthwise-wgrad.cuh; cuDNN's heuristic engines took 2–51 ms on X3D's layer
 * against PyTorch's ~1 ms).
 * @internal
 */
import { ElementKind, UnsupportedError } from '@baracuda/types';
import { type DepthwiseLaunch, type DepthwiseReduce, SPANS, SUFFIX } from './depthwise-launch.js';
import { DEPTHWISE_PTX, DEPTHWISE_SASS } from './depthwise-ptx.js';
import { type ModuleLoader, perDevice } from './module-cache.js';
import {
  type DeviceLike,
  driver,
  type KernelFunctionLike,
  type KernelParamsLike,
  type StreamLike,
} from './sys.js';

export { depthwiseHost } from './depthwise-host.js';
export {
  clvecWidth,
  type DepthwiseLaunch,
  type DepthwisePass,
  type DepthwiseReduce,
  depthwiseLaunch,
  depthwiseUnsupported,
  depthwiseUntuned,
  type TiledShape,
} from './depthwise-launch.js';

/** One launch of a depthwise kernel for one element, ready to enqueue. */
export interface DepthwiseCall {
  readonly launch: DepthwiseLaunch;
  /**
   * Enqueue it on `stream`: `out = alpha · pass(input, w) + beta · out`, where input, w, out are x,
   * w, y (forward), dy, w, dx (backward-data) or x, dy, dw (backward-filter). `workspace`: at
   * least `launch.workspaceBytes` of device memory (backward-filter's partial sums; unread
   * otherwise), the stream's alone until the launch is done.
   */
  run(
    stream: StreamLike,
    input: bigint,
    w: bigint,
    out: bigint,
    alpha: number,
    beta: number,
    workspace?: bigint,
  ): void;
}

/**
 * Backward-filter's two launches: pass 1 (x, dy, partials in the workspace, planes, its ints), then
 * pass 2 (partials, dw, count, slots, alpha, beta).
 */
function twoPass(
  packed: KernelParamsLike,
  pass1: KernelFunctionLike,
  pass2: KernelFunctionLike,
  launch: DepthwiseLaunch,
  reduce: DepthwiseReduce,
  f64: boolean,
  stream: StreamLike,
  [x, dy, dw, workspace]: readonly bigint[],
  [alpha, beta]: readonly number[],
): void {
  const first = packed.reset().ptr(x!).ptr(dy!).ptr(workspace!).u64(launch.planes);
  for (const v of launch.ints) first.i32(v);
  pass1.launch(stream, launch.grid, launch.block, launch.sharedBytes, first.bytes());
  const second = packed.reset().ptr(workspace!).ptr(dw!).u64(reduce.count).i32(reduce.slots);
  if (f64) second.f64(alpha!).f64(beta!);
  else second.f32(alpha!).f32(beta!);
  pass2.launch(stream, reduce.grid, reduce.block, 0, second.bytes());
}

/** The depthwise kernels loaded on one device. */
export class DepthwiseKernels {
  readonly #functions: Map<string, KernelFunctionLike>;
  /** 3 pointers, planes, up to 21 ints, alpha and beta (f64 at most): 136 bytes with padding. */
  readonly #params = new driver.KernelParams(192);

  private constructor(functions: Map<string, KernelFunctionLike>) {
    this.#functions = functions;
  }

  /**
   * The launch for `element`, its kernel function looked up once (a plan makes one per pass, so a
   * run call only packs its parameters). UnsupportedError for an element the kernels do not take.
   */
  call(launch: DepthwiseLaunch, element: ElementKind): DepthwiseCall {
    const fn = this.#functions.get(`${launch.kernel}${launch.span ?? ''}_${SUFFIX[element]}`);
    if (fn === undefined) {
      throw new UnsupportedError(`baracuda's depthwise kernels do not take element ${element}`);
    }
    const f64 = element === ElementKind.F64;
    const packed = this.#params;
    const reduce = launch.reduce;
    if (reduce !== undefined) {
      const sum = this.#functions.get(`wgradsum_${SUFFIX[element]}`)!;
      return {
        launch,
        run(stream, input, w, out, alpha, beta, workspace = 0n) {
          twoPass(
            packed,
            fn,
            sum,
            launch,
            reduce,
            f64,
            stream,
            [input, w, out, workspace],
            [alpha, beta],
          );
        },
      };
    }
    return {
      launch,
      run(stream, input, w, out, alpha, beta) {
        const params = packed.reset().ptr(input).ptr(w).ptr(out).u64(launch.planes);
        for (const v of launch.ints) params.i32(v);
        if (f64) params.f64(alpha).f64(beta);
        else params.f32(alpha).f32(beta);
        fn.launch(stream, launch.grid, launch.block, launch.sharedBytes, params.bytes());
      },
    };
  }

  static readonly #perDevice = new Map<number, DepthwiseKernels | Error>();

  /**
   * The kernels on `device`, loaded once per process; the Error when they cannot load there.
   * `load` is the module loader (tests pass their own).
   */
  static forDevice(device: DeviceLike, load?: ModuleLoader): DepthwiseKernels | Error {
    return perDevice(
      DepthwiseKernels.#perDevice,
      device,
      { unit: 'depthwise', ptx: DEPTHWISE_PTX, sass: DEPTHWISE_SASS },
      load,
      (module) => {
        const functions = new Map<string, KernelFunctionLike>();
        for (const kernel of [
          ...SPANS.map((span) => `tiled${span}`),
          'gather',
          'gathercl',
          'clvec',
          'clmarch',
          'wgrad',
          'wgradcl',
          'wgradrow',
          'wgradsum',
        ]) {
          for (const suffix of Object.values(SUFFIX) as string[]) {
            const name = `${kernel}_${suffix}`;
            functions.set(name, module.getFunction(`baracuda_depthwise_${name}`));
          }
        }
        return new DepthwiseKernels(functions);
      },
    );
  }

  /** @internal Forget loaded modules (tests). */
  static resetForTests(): void {
    DepthwiseKernels.#perDevice.clear();
  }
}
