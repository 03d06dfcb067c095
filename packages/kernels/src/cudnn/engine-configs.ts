/**
 * Engine configs of an operation graph: what the heuristics offer, what an engine config is
 * (engine index, knob choices, numerical notes), an engine's knob ranges, a config built from an
 * index and knobs, and its finalized execution plan. Plumbing only: which config to take is the
 * selection's business.
 */
import type { KnobRange } from '../policy.js';
import { numericalNoteName } from '../policy.js';
import { type AttributeValues, type BackendDescriptor, C, cudnn } from '../sys.js';
import { type CudnnScope, getScalar } from './scope.js';

/** Knob choices asked of an engine config at first (asked again when it has more). */
const KNOB_SLOTS = 16;
/** Knob-info slots asked of an engine (cuDNN 9 has 37 knob types). */
const KNOB_INFO_SLOTS = 40;

/** An engine config the heuristics offered (or we built), described. */
export interface EngineCandidate {
  cfg: BackendDescriptor;
  engineIndex: number;
  knobs: [number, number][];
  notes: string[];
  /**
   * Whether its engine notes RUNTIME_COMPILATION: building its plan compiles kernels (NVRTC),
   * 0.3-0.65 s a config on an H200 where a precompiled config builds in about a millisecond.
   */
  compilesAtRunTime?: boolean;
}

/** An engine config with its finalized execution plan. */
export interface BuiltCandidate {
  c: EngineCandidate;
  plan: BackendDescriptor;
  workspaceBytes: number;
}

/** How an engine config is told apart from others: its engine and knob choices. */
export function configId(
  engineIndex: number,
  knobs: readonly (readonly [number, number])[],
): string {
  return `${engineIndex}:${JSON.stringify(knobs)}`;
}

/** Engine configs the heuristics offer in one mode ([] when the mode has none). */
export function heuristicConfigs(
  scope: CudnnScope,
  graph: BackendDescriptor,
  mode: number,
): BackendDescriptor[] {
  const heur = scope.createBackend(C.CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, 'heuristics');
  try {
    scope.set(heur, C.CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, C.CUDNN_TYPE_BACKEND_DESCRIPTOR, [
      graph,
    ]);
    scope.set(heur, C.CUDNN_ATTR_ENGINEHEUR_MODE, C.CUDNN_TYPE_HEUR_MODE, new Int32Array([mode]));
    if (cudnn.cudnnBackendFinalize(heur) !== 0) return [];
    const count = cudnn.cudnnBackendGetAttribute(
      heur,
      C.CUDNN_ATTR_ENGINEHEUR_RESULTS,
      C.CUDNN_TYPE_BACKEND_DESCRIPTOR,
      0,
      [],
    );
    const n = Number(count.elementCount);
    if (count.status !== 0 || n === 0) return [];
    const cfgs: BackendDescriptor[] = [];
    for (let i = 0; i < n; i++)
      cfgs.push(scope.createBackend(C.CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 'engine config'));
    const r = cudnn.cudnnBackendGetAttribute(
      heur,
      C.CUDNN_ATTR_ENGINEHEUR_RESULTS,
      C.CUDNN_TYPE_BACKEND_DESCRIPTOR,
      n,
      cfgs,
    );
    const got = r.status === 0 ? Math.min(n, Number(r.elementCount)) : 0;
    for (const extra of cfgs.slice(got)) scope.destroyBackend(extra);
    return cfgs.slice(0, got);
  } finally {
    scope.destroyBackend(heur);
  }
}

/** An engine config's engine: a new descriptor for the caller to destroy; null if cuDNN does not say. */
export function engineOf(scope: CudnnScope, cfg: BackendDescriptor): BackendDescriptor | null {
  const engine = scope.createBackend(C.CUDNN_BACKEND_ENGINE_DESCRIPTOR, 'engine');
  const r = cudnn.cudnnBackendGetAttribute(
    cfg,
    C.CUDNN_ATTR_ENGINECFG_ENGINE,
    C.CUDNN_TYPE_BACKEND_DESCRIPTOR,
    1,
    [engine],
  );
  if (r.status === 0) return engine;
  scope.destroyBackend(engine);
  return null;
}

/** Engine index, knobs and numerical notes of an engine config. */
export function describeConfig(scope: CudnnScope, cfg: BackendDescriptor): EngineCandidate | null {
  const engine = engineOf(scope, cfg);
  if (engine === null) return null;
  const knobDescs: BackendDescriptor[] = [];
  try {
    const engineIndex = getScalar(engine, C.CUDNN_ATTR_ENGINE_GLOBAL_INDEX);
    if (engineIndex === null) return null;
    const notesR = cudnn.cudnnBackendGetAttribute(
      engine,
      C.CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
      C.CUDNN_TYPE_NUMERICAL_NOTE,
      16,
    );
    const notes: string[] = [];
    if (notesR.status === 0) {
      const values = notesR.values as ArrayLike<number | bigint>;
      const count = Math.min(Number(notesR.elementCount), values.length);
      for (let i = 0; i < count; i++) notes.push(numericalNoteName(Number(values[i])));
    }
    const behaviourR = cudnn.cudnnBackendGetAttribute(
      engine,
      C.CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
      C.CUDNN_TYPE_BEHAVIOR_NOTE,
      16,
    );
    let compilesAtRunTime = false;
    if (behaviourR.status === 0) {
      const values = behaviourR.values as ArrayLike<number | bigint>;
      const count = Math.min(Number(behaviourR.elementCount), values.length);
      for (let i = 0; i < count; i++) {
        if (Number(values[i]) === C.CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION)
          compilesAtRunTime = true;
      }
    }
    const knobs: [number, number][] = [];
    // Ask for a fixed number of choices, and again if the config has more. Asked for the count
    // with an empty array, cuDNN 9.14 and 9.19 report no choices: every config of an engine then
    // looked alike and all but the first were dropped as duplicates (on an H200 that hid
    // engine 28's default config, 1.37 ms against 1.98 ms, for a VideoMAE f32 patch embedding).
    const ask = (count: number) => {
      while (knobDescs.length < count)
        knobDescs.push(scope.createBackend(C.CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, 'knob choice'));
      return cudnn.cudnnBackendGetAttribute(
        cfg,
        C.CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
        C.CUDNN_TYPE_BACKEND_DESCRIPTOR,
        count,
        knobDescs,
      );
    };
    let r = ask(KNOB_SLOTS);
    if (r.status === 0 && Number(r.elementCount) > KNOB_SLOTS) r = ask(Number(r.elementCount));
    const got = r.status === 0 ? Math.min(knobDescs.length, Number(r.elementCount)) : 0;
    for (const choice of knobDescs.slice(0, got)) {
      const t = getScalar(choice, C.CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, C.CUDNN_TYPE_KNOB_TYPE);
      const v = getScalar(choice, C.CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE);
      if (t !== null && v !== null) knobs.push([t, v]);
    }
    knobs.sort((a, b) => a[0] - b[0]);
    return { cfg, engineIndex, knobs, notes, ...(compilesAtRunTime ? { compilesAtRunTime } : {}) };
  } finally {
    scope.destroyBackend(engine);
    for (const k of knobDescs) scope.destroyBackend(k);
  }
}

/** The knob ranges of an engine config's engine ([] when cuDNN does not say). */
export function knobSpace(scope: CudnnScope, cfg: BackendDescriptor): KnobRange[] {
  const engine = engineOf(scope, cfg);
  if (engine === null) return [];
  const infos: BackendDescriptor[] = [];
  try {
    for (let i = 0; i < KNOB_INFO_SLOTS; i++)
      infos.push(scope.createBackend(C.CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, 'knob info'));
    const r = cudnn.cudnnBackendGetAttribute(
      engine,
      C.CUDNN_ATTR_ENGINE_KNOB_INFO,
      C.CUDNN_TYPE_BACKEND_DESCRIPTOR,
      infos.length,
      infos,
    );
    const got = r.status === 0 ? Math.min(infos.length, Number(r.elementCount)) : 0;
    const space: KnobRange[] = [];
    for (const info of infos.slice(0, got)) {
      const knob = getScalar(info, C.CUDNN_ATTR_KNOB_INFO_TYPE, C.CUDNN_TYPE_KNOB_TYPE);
      const min = getScalar(info, C.CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE);
      const max = getScalar(info, C.CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE);
      const stride = getScalar(info, C.CUDNN_ATTR_KNOB_INFO_STRIDE);
      if (knob === null || min === null || max === null || stride === null) continue;
      space.push({ knob, min, max, stride });
    }
    return space;
  } finally {
    scope.destroyBackend(engine);
    for (const info of infos) scope.destroyBackend(info);
  }
}

/**
 * An engine config built from an engine's global index and knob choices (autotune's knob search,
 * and a cached choice); null when cuDNN refuses it. Its engine and knob choices live as long as
 * it does.
 */
export function buildConfig(
  scope: CudnnScope,
  graph: BackendDescriptor,
  engineIndex: number,
  knobs: readonly (readonly [number, number])[],
): BackendDescriptor | null {
  const parts: BackendDescriptor[] = [];
  const fail = () => {
    for (const p of parts) scope.destroyBackend(p);
    return null;
  };
  const set = (d: BackendDescriptor, name: number, type: number, values: AttributeValues) =>
    cudnn.cudnnBackendSetAttribute(d, name, type, values) === 0;
  const setInt64 = (d: BackendDescriptor, name: number, value: number) =>
    set(d, name, C.CUDNN_TYPE_INT64, new BigInt64Array([BigInt(value)]));
  const engine = scope.createBackend(C.CUDNN_BACKEND_ENGINE_DESCRIPTOR, 'engine');
  parts.push(engine);
  if (
    !set(engine, C.CUDNN_ATTR_ENGINE_OPERATION_GRAPH, C.CUDNN_TYPE_BACKEND_DESCRIPTOR, [graph]) ||
    !setInt64(engine, C.CUDNN_ATTR_ENGINE_GLOBAL_INDEX, engineIndex) ||
    cudnn.cudnnBackendFinalize(engine) !== 0
  )
    return fail();
  const choices: BackendDescriptor[] = [];
  for (const [knob, value] of knobs) {
    const choice = scope.createBackend(C.CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, 'knob choice');
    parts.push(choice);
    choices.push(choice);
    if (
      !set(
        choice,
        C.CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
        C.CUDNN_TYPE_KNOB_TYPE,
        new Int32Array([knob]),
      ) ||
      !setInt64(choice, C.CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, value) ||
      cudnn.cudnnBackendFinalize(choice) !== 0
    )
      return fail();
  }
  const cfg = scope.createBackend(C.CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 'engine config');
  scope.setParts(cfg, parts);
  if (
    !set(cfg, C.CUDNN_ATTR_ENGINECFG_ENGINE, C.CUDNN_TYPE_BACKEND_DESCRIPTOR, [engine]) ||
    (choices.length > 0 &&
      !set(cfg, C.CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, C.CUDNN_TYPE_BACKEND_DESCRIPTOR, choices)) ||
    cudnn.cudnnBackendFinalize(cfg) !== 0
  ) {
    scope.destroyBackend(cfg);
    return null;
  }
  return cfg;
}

/** Finalize an execution plan; null (no throw) when cuDNN refuses this config. */
export function finalizePlan(
  scope: CudnnScope,
  cfg: BackendDescriptor,
): { plan: BackendDescriptor; workspaceBytes: number } | null {
  const plan = scope.createBackend(C.CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 'execution plan');
  const fail = () => {
    scope.destroyBackend(plan);
    return null;
  };
  if (
    cudnn.cudnnBackendSetAttribute(plan, C.CUDNN_ATTR_EXECUTION_PLAN_HANDLE, C.CUDNN_TYPE_HANDLE, [
      scope.handle.handle,
    ]) !== 0
  )
    return fail();
  if (
    cudnn.cudnnBackendSetAttribute(
      plan,
      C.CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
      C.CUDNN_TYPE_BACKEND_DESCRIPTOR,
      [cfg],
    ) !== 0
  )
    return fail();
  if (cudnn.cudnnBackendFinalize(plan) !== 0) return fail();
  const workspaceBytes = getScalar(plan, C.CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE);
  if (workspaceBytes === null) return fail();
  return { plan, workspaceBytes };
}
