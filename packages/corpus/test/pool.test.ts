/**
 * The pool against a stand-in child (fake-child.mjs): crashes, exits, hangs and crashes that need
 * an earlier case are each attributed to the right case, and the cases after them still run.
 */
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CaseRef, Target } from '../src/model.js';
import { runPool } from '../src/pool.js';

const target: Target = {
  id: 'driver/Stand.in',
  pkg: 'driver',
  exportName: 'Stand',
  slots: [],
  prepare: () => {
    throw new Error('not used: the stand-in child runs nothing');
  },
};

/** Cases named after what the stand-in does; each must be refused (acceptable: false). */
function cases(...actions: string[]): CaseRef[] {
  return actions.map((action, i) => ({
    id: `driver/Stand.in/${i}/${action}`,
    target,
    slot: null,
    value: action,
    acceptable: false,
  }));
}

async function outcomes(list: CaseRef[], batchSize = 50) {
  const results = await runPool(list, {
    jobs: 2,
    batchSize,
    timeoutMs: 3000,
    command: [process.execPath],
    childScript: fileURLToPath(new URL('./fake-child.mjs', import.meta.url)),
    env: process.env,
    cwd: tmpdir(),
  });
  return Object.fromEntries(results.map((r) => [r.id.split('/').slice(2).join('/'), r.outcome]));
}

describe('runPool', () => {
  it('classifies each refusal, acceptance and error, one result per case', async () => {
    expect(await outcomes(cases('typed', 'accept', 'untyped', 'late'))).toEqual({
      '0/typed': 'typed',
      '1/accept': 'silent',
      '2/untyped': 'untyped',
      '3/late': 'untyped',
    });
  });

  it('attributes a crash and an early exit to their cases and still runs the cases after them', async () => {
    expect(await outcomes(cases('typed', 'crash', 'typed', 'exit', 'typed'))).toEqual({
      '0/typed': 'typed',
      '1/crash': 'signal',
      '2/typed': 'typed',
      '3/exit': 'signal',
      '4/typed': 'typed',
    });
  });

  it('counts a case past the timeout as a hang and runs the rest', async () => {
    expect(await outcomes(cases('hang', 'typed'))).toEqual({
      '0/hang': 'hang',
      '1/typed': 'typed',
    });
  });

  it('reports a crash that only follows an earlier case with the sequence that reproduces it', async () => {
    const list = cases('poison', 'typed', 'victim', 'typed');
    const results = await runPool(list, {
      jobs: 1,
      batchSize: 50,
      timeoutMs: 3000,
      command: [process.execPath],
      childScript: fileURLToPath(new URL('./fake-child.mjs', import.meta.url)),
      env: process.env,
      cwd: tmpdir(),
    });
    const victim = results.find((r) => r.id.endsWith('/victim'))!;
    expect(victim.outcome).toBe('signal');
    expect(victim.detail).toContain(
      'only after the 2 cases before it in one process (alone: returned undefined (accepted an invalid call))',
    );
    expect(victim.detail).toContain(
      "--case 'driver/Stand.in/0/poison' --case 'driver/Stand.in/1/typed' --case 'driver/Stand.in/2/victim'",
    );
    // The cases before it were run again without it; poison alone accepts (silent), no crash.
    expect(results.map((r) => r.outcome)).toEqual(['silent', 'typed', 'signal', 'typed']);
  });
});
