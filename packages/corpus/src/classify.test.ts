import { describe, expect, it } from 'vitest';
import { classify } from './classify.js';
import type { CaseRef, PackageName } from './model.js';

function refusedCase(pkg: PackageName, acceptable = false): CaseRef {
  const target = { id: `${pkg}/f`, pkg, exportName: 'f', slots: [], prepare: () => ({}) as never };
  const slot = { name: 'arg0', at: { arg: 0 }, kind: 'i32' } as const;
  return { id: `${pkg}/f/arg0=nan`, target, slot, value: 'nan', acceptable };
}

const typeError = { kind: 'threw', name: 'TypeError', message: 'x', typed: false } as const;

describe('classify', () => {
  it('counts a typed error as a refusal and anything else thrown as untyped', () => {
    const typed = {
      kind: 'threw',
      name: 'InvalidArgumentError',
      message: 'x',
      typed: true,
    } as const;
    expect(classify(refusedCase('driver'), typed).outcome).toBe('typed');
    expect(classify(refusedCase('driver'), typeError).outcome).toBe('untyped');
    expect(classify(refusedCase('kernels', true), typeError).outcome).toBe('untyped');
  });

  it("takes cudnn-sys's TypeError / RangeError and a non-zero status as refusals, status 0 as acceptance", () => {
    expect(classify(refusedCase('cudnn-sys'), typeError).outcome).toBe('typed');
    expect(classify(refusedCase('cudnn-sys'), { kind: 'returned', status: 2000 }).outcome).toBe(
      'typed',
    );
    expect(classify(refusedCase('cudnn-sys'), { kind: 'returned', status: 0 }).outcome).toBe(
      'silent',
    );
    expect(classify(refusedCase('driver'), { kind: 'returned', status: 2000 }).outcome).toBe(
      'silent',
    );
  });

  it('treats cublaslt-sys as a sys layer too: TypeError and a non-zero cublasStatus_t refuse', () => {
    expect(classify(refusedCase('cublaslt-sys'), typeError).outcome).toBe('typed');
    expect(classify(refusedCase('cublaslt-sys'), { kind: 'returned', status: 7 }).outcome).toBe(
      'typed',
    );
    expect(classify(refusedCase('cublaslt-sys'), { kind: 'returned', status: 0 }).outcome).toBe(
      'silent',
    );
    const untyped = { kind: 'threw', name: 'Error', message: 'Invalid argument', typed: false };
    expect(classify(refusedCase('cublaslt-sys'), untyped as never).outcome).toBe('untyped');
  });

  it('takes any cudnn-sys status after a re-entrant getter destroyed the object as acceptance', () => {
    const c = refusedCase('cudnn-sys');
    const reentrant = { ...c, value: 'reentrant', target: { ...c.target, hasVictim: true } };
    expect(classify(reentrant, { kind: 'returned', status: 2000 }).outcome).toBe('silent');
    expect(classify(reentrant, typeError).outcome).toBe('typed');
  });

  it('lets an acceptable value be accepted or refused', () => {
    expect(classify(refusedCase('driver', true), { kind: 'returned' }).outcome).toBe('ok');
    const typed = { kind: 'threw', name: 'DisposedError', message: 'x', typed: true } as const;
    expect(classify(refusedCase('driver', true), typed).outcome).toBe('ok');
  });
});
