/**
 * Turns what a child saw into an outcome class. A refusal is a @baracuda/types error, or the
 * error the case's own getter or callback threw (CorpusUserError) passed on; for cudnn-sys and
 * nccl-sys and cublaslt-sys also their documented TypeError / RangeError for bad arguments and a non-zero status
 * (the sys layers return statuses, they do not throw them).
 */
import type { CaseRef, Observation, OutcomeClass } from './model.js';

export function classify(c: CaseRef, seen: Observation): { outcome: OutcomeClass; detail: string } {
  const sys =
    c.target.pkg === 'cudnn-sys' || c.target.pkg === 'nccl-sys' || c.target.pkg === 'cublaslt-sys';
  if (seen.kind === 'returned') {
    // A re-entrant value destroyed the call's object before the C call: any status means the C
    // call ran on freed memory (the fake answers garbage), so only a throw is a refusal.
    if (sys && c.value === 'reentrant' && c.target.hasVictim) {
      return {
        outcome: 'silent',
        detail: `returned status ${seen.status} (the C call ran on the object the getter destroyed)`,
      };
    }
    if (sys && seen.status !== undefined && seen.status !== 0) {
      return { outcome: c.acceptable ? 'ok' : 'typed', detail: `status ${seen.status}` };
    }
    const what =
      sys && seen.status !== undefined
        ? `returned status ${seen.status}`
        : `returned ${seen.preview ?? 'a value'}`;
    return c.acceptable
      ? { outcome: 'ok', detail: what }
      : { outcome: 'silent', detail: `${what} (accepted an invalid ${c.slot?.name ?? 'call'})` };
  }
  const detail = `${seen.name}${seen.code ? ` [${seen.code}]` : ''}: ${seen.message}`;
  // The case's own getter or callback threw (values.ts's CorpusUserError): passed on unchanged.
  const own = seen.name === 'CorpusUserError';
  const typed =
    seen.typed || own || (sys && (seen.name === 'TypeError' || seen.name === 'RangeError'));
  if (!typed) return { outcome: 'untyped', detail };
  return { outcome: c.acceptable ? 'ok' : 'typed', detail };
}
