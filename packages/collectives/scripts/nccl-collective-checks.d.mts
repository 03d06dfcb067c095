/** Types of nccl-collective-checks.mjs. */
import type { Stream } from '@baracuda/driver';
import type { Communicator } from '../src/index.js';
export declare const KINDS: Readonly<
  Record<'f32' | 'f64' | 'f16' | 'bf16', { bytes: number; tol: number }>
>;
export declare function runCollectiveChecks(options: {
  comms: readonly Communicator[];
  streams: readonly Stream[];
  count?: number;
  report: (name: string, relL2: number, tolerance: number, ok: boolean) => void;
}): Promise<number>;
