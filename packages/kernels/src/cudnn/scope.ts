/**
 * The native resources of one problem's plan: the shared handle it holds, the cuDNN descriptors
 * it made, its workspace and scratch buffers. Kept apart from the plan so that a
 * FinalizationRegistry can free them when a plan is dropped undisposed; freed once, never
 * throwing.
 */
import { DisposedError } from '@baracuda/types';
import type { Role } from '../core/pass.js';
import {
  type AttributeValues,
  type BackendDescriptor,
  C,
  type ConvolutionDescriptor,
  cudnn,
  type DeviceLike,
  driver,
  type FilterDescriptor,
  type OwnedBuffer,
  outputOf,
  type StreamLike,
  type TensorDescriptor,
} from '../sys.js';
import { releaseHandle, type SharedHandle } from './handle.js';
import { check } from './status.js';

/** @internal */
interface Resources {
  backend: Set<BackendDescriptor>;
  /** Descriptors an engine config we built refers to (its engine, its knob choices). */
  parts: Map<BackendDescriptor, BackendDescriptor[]>;
  tensors: Set<TensorDescriptor>;
  filters: Set<FilterDescriptor>;
  convs: Set<ConvolutionDescriptor>;
  handle: SharedHandle | null;
  workspace: OwnedBuffer | null;
  /** Scratch operands of the layout detour (x-like, w-like, y-like); w also the flipped filter. */
  scratch: Record<Role, OwnedBuffer | null>;
  released: boolean;
}

function attempt(f: () => unknown): void {
  try {
    f();
  } catch {
    // never throw from cleanup
  }
}

function releaseResources(res: Resources): void {
  if (res.released) return;
  res.released = true;
  for (const d of res.backend) attempt(() => cudnn.cudnnBackendDestroyDescriptor(d));
  for (const d of res.tensors) attempt(() => cudnn.cudnnDestroyTensorDescriptor(d));
  for (const d of res.filters) attempt(() => cudnn.cudnnDestroyFilterDescriptor(d));
  for (const d of res.convs) attempt(() => cudnn.cudnnDestroyConvolutionDescriptor(d));
  res.backend.clear();
  res.parts.clear();
  res.tensors.clear();
  res.filters.clear();
  res.convs.clear();
  const ws = res.workspace;
  res.workspace = null;
  if (ws) attempt(() => ws.dispose());
  for (const role of ['x', 'w', 'y'] as const) {
    const buf = res.scratch[role];
    res.scratch[role] = null;
    if (buf) attempt(() => buf.dispose());
  }
  const h = res.handle;
  res.handle = null;
  if (h) attempt(() => releaseHandle(h));
}

const registry = new FinalizationRegistry<Resources>((res) => releaseResources(res));

/** One scalar attribute of a backend descriptor (INT64 unless `type` says), or null if cuDNN does not give it. */
export function getScalar(
  d: BackendDescriptor,
  name: number,
  type: number = C.CUDNN_TYPE_INT64,
): number | null {
  const r = cudnn.cudnnBackendGetAttribute(d, name, type, 1);
  return r.status === 0 ? Number((r.values as ArrayLike<number | bigint>)[0]) : null;
}

/** @internal What one problem's plan owns natively; `problem` names it in errors. */
export class CudnnScope {
  readonly #res: Resources;
  readonly problem: string;
  readonly #device: DeviceLike;

  /** Holds `handle` (released with the scope); freed when `owner` is collected undisposed. */
  constructor(owner: object, handle: SharedHandle, problem: string, device: DeviceLike) {
    this.problem = problem;
    this.#device = device;
    this.#res = {
      backend: new Set(),
      parts: new Map(),
      tensors: new Set(),
      filters: new Set(),
      convs: new Set(),
      handle,
      workspace: null,
      scratch: { x: null, w: null, y: null },
      released: false,
    };
    registry.register(owner, this.#res, owner);
  }

  /** The shared handle (DisposedError once released: the plan was disposed). */
  get handle(): SharedHandle {
    const h = this.#res.handle;
    if (h === null) throw new DisposedError('Conv3dPlan');
    return h;
  }

  createBackend(type: number, what: string): BackendDescriptor {
    const r = cudnn.cudnnBackendCreateDescriptor(type);
    check(r.status, 'cudnnBackendCreateDescriptor', `${this.problem} (${what})`);
    const d = outputOf<BackendDescriptor>(r, 'descriptor');
    this.#res.backend.add(d);
    return d;
  }

  /** Destroy a descriptor this scope made, and the parts it refers to. */
  destroyBackend(d: BackendDescriptor): void {
    if (this.#res.backend.delete(d)) {
      try {
        cudnn.cudnnBackendDestroyDescriptor(d);
      } catch {
        // ignore
      }
    }
    const parts = this.#res.parts.get(d);
    if (parts !== undefined) {
      this.#res.parts.delete(d);
      for (const p of parts) this.destroyBackend(p);
    }
  }

  /** Record that destroying `owner` destroys `parts` too (an engine config's engine and knobs). */
  setParts(owner: BackendDescriptor, parts: BackendDescriptor[]): void {
    this.#res.parts.set(owner, parts);
  }

  set(d: BackendDescriptor, name: number, type: number, values: AttributeValues): void {
    const status = cudnn.cudnnBackendSetAttribute(d, name, type, values);
    if (status !== 0) {
      check(status, 'cudnnBackendSetAttribute', `${this.problem} (attribute ${name})`);
    }
  }

  /** A scope-owned legacy 5-D tensor descriptor. */
  legacyTensor(
    dataType: number,
    dims: readonly number[],
    strides: readonly number[],
    what: string,
  ): TensorDescriptor {
    const r = cudnn.cudnnCreateTensorDescriptor();
    check(r.status, 'cudnnCreateTensorDescriptor', this.problem);
    const t = outputOf<TensorDescriptor>(r, 'tensorDesc');
    this.#res.tensors.add(t);
    check(
      cudnn.cudnnSetTensorNdDescriptor(
        t,
        dataType,
        5,
        Int32Array.from(dims),
        Int32Array.from(strides),
      ),
      'cudnnSetTensorNdDescriptor',
      `${this.problem} (${what})`,
    );
    return t;
  }

  /** A scope-owned legacy filter descriptor. */
  legacyFilter(dataType: number, format: number, dims: readonly number[]): FilterDescriptor {
    const r = cudnn.cudnnCreateFilterDescriptor();
    check(r.status, 'cudnnCreateFilterDescriptor', this.problem);
    const f = outputOf<FilterDescriptor>(r, 'filterDesc');
    this.#res.filters.add(f);
    check(
      cudnn.cudnnSetFilterNdDescriptor(f, dataType, format, 5, Int32Array.from(dims)),
      'cudnnSetFilterNdDescriptor',
      `${this.problem} (w)`,
    );
    return f;
  }

  /** A scope-owned legacy convolution descriptor, not yet set. */
  legacyConvolution(): ConvolutionDescriptor {
    const r = cudnn.cudnnCreateConvolutionDescriptor();
    check(r.status, 'cudnnCreateConvolutionDescriptor', this.problem);
    const conv = outputOf<ConvolutionDescriptor>(r, 'convDesc');
    this.#res.convs.add(conv);
    return conv;
  }

  /** The plan's own workspace, grown to `bytes` (the old one freed in stream order). */
  workspace(bytes: number, stream: StreamLike): bigint {
    const current = this.#res.workspace;
    if (bytes === 0) return current?.devicePtr ?? 0n;
    if (current !== null && current.byteLength >= bytes) return current.devicePtr;
    const next = driver.DeviceBuffer.alloc(bytes, { device: this.#device, stream });
    this.#res.workspace = next;
    if (current !== null) current.dispose();
    return next.devicePtr;
  }

  /** The own workspace's pointer as it is now (0 before the first). */
  get workspacePtr(): bigint {
    return this.#res.workspace?.devicePtr ?? 0n;
  }

  /**
   * A scope-owned scratch operand: allocated on first use (stream-ordered), then reused. The layout
   * detour's operands, or backward-data-as-forward's flipped filter. One plan may take both (the
   * detour for some passes, the flip for backward-data): each run writes the scratch it reads,
   * before reading it, in stream order.
   */
  scratch(role: Role, bytes: number, stream: StreamLike): bigint {
    const current = this.#res.scratch[role];
    if (current !== null && current.byteLength >= bytes) return current.devicePtr;
    const next = driver.DeviceBuffer.alloc(bytes, { device: this.#device, stream });
    this.#res.scratch[role] = next;
    if (current !== null) current.dispose();
    return next.devicePtr;
  }

  /** Free the scratch of `roles` now. */
  dropScratch(roles: readonly Role[]): void {
    for (const role of roles) {
      const buf = this.#res.scratch[role];
      this.#res.scratch[role] = null;
      buf?.dispose();
    }
  }

  /** Free everything (idempotent). */
  release(owner: object): void {
    registry.unregister(owner);
    releaseResources(this.#res);
  }
}
