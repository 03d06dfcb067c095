/**
 * Padding of a convolution: symmetric `(d, h, w)`, per-axis before/after
 * (`{ before: [d, h, w], after: [d, h, w] }`), or `'same'` (PyTorch's `padding='same'`).
 * The descriptors keep the before side in `padD/padH/padW` (as always) and the after side in
 * `padAfterD/padAfterH/padAfterW`; cuDNN's graph API takes them as pre and post paddings.
 */
import { InvalidArgumentError, InvalidProblemError } from '@baracuda/types';

/** Per-axis padding before (leading) and after (trailing) the input, each `[d, h, w]`. */
export interface AsymmetricPadding {
  readonly before: readonly [number, number, number];
  readonly after: readonly [number, number, number];
}

/** What `withPadding` takes as its one argument (the symmetric form takes three numbers). */
export type PaddingSpec = AsymmetricPadding | 'same';

/** @internal The six padding fields of a descriptor. */
export interface PaddingFields {
  padD: number;
  padH: number;
  padW: number;
  padAfterD: number;
  padAfterH: number;
  padAfterW: number;
}

/**
 * PyTorch's rule for `padding='same'` (stride 1): total = dilation·(k − 1) per axis,
 * before = floor(total / 2), after = total − before (an even kernel's extra plane goes after).
 */
export function samePadding(
  dilation: readonly [number, number, number],
  filter: readonly [number, number, number],
): PaddingFields {
  const total = [0, 1, 2].map((a) => dilation[a]! * (filter[a]! - 1));
  const before = total.map((t) => Math.floor(t / 2));
  return {
    padD: before[0]!,
    padH: before[1]!,
    padW: before[2]!,
    padAfterD: total[0]! - before[0]!,
    padAfterH: total[1]! - before[1]!,
    padAfterW: total[2]! - before[2]!,
  };
}

function triple(value: unknown, name: string): [number, number, number] {
  if (!Array.isArray(value) || value.length !== 3) {
    throw new InvalidArgumentError(name, 'an array of 3 non-negative integers [d, h, w]', value);
  }
  return [value[0], value[1], value[2]];
}

/**
 * The padding fields of `withPadding(spec)` for an explicit form (the values are checked by
 * validate(), as the symmetric form's are); `'same'` is resolved by the descriptor.
 */
export function explicitPadding(spec: unknown): PaddingFields {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    throw new InvalidArgumentError(
      'padding',
      "three numbers (d, h, w), { before: [d, h, w], after: [d, h, w] } or 'same'",
      spec,
    );
  }
  const s = spec as Partial<AsymmetricPadding>;
  const before = triple(s.before, 'padding.before');
  const after = triple(s.after, 'padding.after');
  return {
    padD: before[0],
    padH: before[1],
    padW: before[2],
    padAfterD: after[0],
    padAfterH: after[1],
    padAfterW: after[2],
  };
}

/** Whether any axis pads differently before and after. */
export function isAsymmetric(p: Readonly<PaddingFields>): boolean {
  return p.padD !== p.padAfterD || p.padH !== p.padAfterH || p.padW !== p.padAfterW;
}

/** `pad=1×1×1` when symmetric (the form the autotune cache's keys have always had), else `pad=0×1×1/1×1×2` (before/after). */
export function describePadding(p: Readonly<PaddingFields>): string {
  const before = `${p.padD}×${p.padH}×${p.padW}`;
  return isAsymmetric(p)
    ? `pad=${before}/${p.padAfterD}×${p.padAfterH}×${p.padAfterW}`
    : `pad=${before}`;
}

/** Padding 'same' takes stride 1 on every axis (PyTorch's rule); a typed error otherwise. */
export function checkSameStride(stride: readonly [number, number, number]): void {
  if (stride.some((s) => s !== 1)) {
    throw new InvalidProblemError(
      `Expected stride 1×1×1 with padding 'same' (PyTorch's rule: 'same' is defined for stride 1 only) ` +
        `but received stride ${stride.join('×')}; give the padding explicitly`,
      'padding',
    );
  }
}

export const PADDING_NAMES = [
  'padD',
  'padH',
  'padW',
  'padAfterD',
  'padAfterH',
  'padAfterW',
] as const;

/**
 * Why the legacy API cannot run a problem padded asymmetrically: pinned mode's refusal at select,
 * and the heuristic/autotune legacy fallback's (which is skipped: no legacy call is made).
 */
export function legacyAsymmetricRefusal(problem: string): string {
  return (
    `The legacy cuDNN API (cudnnSetConvolutionNdDescriptor), which pinned mode and the legacy fallback run, ` +
    `takes one padding per axis for both sides, and ${problem} pads asymmetrically; ` +
    "use algorithm 'heuristic' or 'autotune', whose graph-API engines take pre and post paddings"
  );
}
