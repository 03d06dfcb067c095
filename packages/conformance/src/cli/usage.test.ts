import { describe, expect, it } from 'vitest';
import { closestCommand, usageLines } from './usage.js';

describe('usage errors', () => {
  it('guesses the command meant by a typo or a prefix, and nothing for noise', () => {
    expect(closestCommand('chek')).toBe('check');
    expect(closestCommand('doc')).toBe('doctor');
    expect(closestCommand('bnech')).toBe('bench');
    expect(closestCommand('xyzzy')).toBeUndefined();
  });

  it("keeps only the first sentence of node:util's unknown-option message", () => {
    expect(
      usageLines(
        'demo',
        "Unknown option '--x'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--x\"",
      ),
    ).toEqual([
      "baracuda demo: Unknown option '--x'",
      'Run "baracuda demo --help" for the options.',
    ]);
  });
});
