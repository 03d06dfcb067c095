/** What the demos try, in order (`demo` and `demo --stage`). */
import type { CheckDtype } from '../check/tolerances.js';
import type { Layout } from '../reference/index.js';

/**
 * What the demo tries, in order. bf16 channels-last (NDHWC) first: it is what a 3-D U-Net
 * trains in (bf16 has f32's range, so no loss scaling) and where tensor cores are fastest.
 * f32 NCDHW, strict, is the fallback every cuDNN supports.
 */
export const DEMO_CONFIGS: ReadonlyArray<{ dtype: CheckDtype; layout: Layout }> = [
  { dtype: 'bf16', layout: 'ndhwc' },
  { dtype: 'f16', layout: 'ndhwc' },
  { dtype: 'f32', layout: 'ncdhw' },
];
