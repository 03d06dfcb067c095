/** A scripted BenchBackend for CI: no GPU, deterministic times, chosen failures. */
import { UnsupportedError } from '@baracuda/types';
import type { BenchBackend, GroupSession, PlanSession } from './backend.js';
import type { BenchGroup, BenchMode, BenchPass } from './types.js';

export interface FakeScript {
  /** ms per call for a (case, dtype, layout, pass, mode); undefined → 1 ms. */
  timeMs?: (group: BenchGroup, pass: BenchPass, mode: BenchMode) => number;
  /** Throw from selectPlan for these modes (UnsupportedError unless `error` says otherwise). */
  selectFails?: (group: BenchGroup, mode: BenchMode) => 'unsupported' | 'error' | undefined;
  /** Throw from a timed pass. */
  runFails?: (
    group: BenchGroup,
    pass: BenchPass,
    mode: BenchMode,
  ) => 'unsupported' | 'error' | undefined;
  openFails?: (group: BenchGroup) => boolean;
  copyBytesPerS?: number;
}

export class FakeBackend implements BenchBackend {
  readonly deviceName = 'Fake GPU (sm_90, 132 SMs)';
  readonly cudnn = { version: '9.14.0', path: '/usr/lib/libcudnn.so.9' };
  /** Every call, for assertions: `time fw heuristic warmup=5 reps=30` etc. */
  readonly calls: string[] = [];
  openSessions = 0;
  openPlans = 0;
  /** Plans open when each selectPlan was called. */
  readonly openAtSelect: number[] = [];
  disposed = false;

  constructor(private readonly script: FakeScript = {}) {}

  async measureCopyBandwidth(): Promise<number> {
    return this.script.copyBytesPerS ?? 4e12;
  }

  async openGroup(group: BenchGroup): Promise<GroupSession> {
    if (this.script.openFails?.(group)) throw new Error('out of memory');
    this.openSessions++;
    const backend = this;
    const script = this.script;
    return {
      async selectPlan(mode: BenchMode): Promise<PlanSession> {
        backend.openAtSelect.push(backend.openPlans);
        const fails = script.selectFails?.(group, mode);
        if (fails === 'unsupported')
          throw new UnsupportedError(`${mode} cannot run ${group.case.name}`);
        if (fails === 'error') throw new Error(`select ${mode} exploded`);
        backend.openPlans++;
        return {
          algorithm: (pass) => `${mode}-${pass}-engine`,
          async time(pass, warmup, reps) {
            backend.calls.push(
              `${group.case.name} ${group.dtype} ${group.layout} ${pass} ${mode} warmup=${warmup} reps=${reps}`,
            );
            const fail = script.runFails?.(group, pass, mode);
            if (fail === 'unsupported')
              throw new UnsupportedError(`${mode} has no ${pass} algorithm`);
            if (fail === 'error') throw new Error(`${pass} failed`);
            const ms = script.timeMs?.(group, pass, mode) ?? 1;
            return Array.from({ length: reps }, (_, i) => ms * (1 + (i % 3) * 0.01));
          },
          async hostOverhead(pass, calls, trials) {
            backend.calls.push(
              `overhead ${group.dtype} ${group.layout} ${pass} ${mode} calls=${calls} trials=${trials}`,
            );
            const fail = script.runFails?.(group, pass, mode);
            if (fail === 'unsupported')
              throw new UnsupportedError(`${mode} has no ${pass} algorithm`);
            if (fail === 'error') throw new Error(`${pass} failed`);
            return Array.from({ length: trials }, (_, i) => (mode === 'pinned' ? 80 : 8) + i);
          },
          dispose() {
            backend.openPlans--;
          },
        };
      },
      dispose() {
        backend.openSessions--;
      },
    };
  }

  dispose(): void {
    this.disposed = true;
  }
}
