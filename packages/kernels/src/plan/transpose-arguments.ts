/** The arguments of a ConvTranspose3dPlan's runs: the convolution's argument shapes, with the transposed convolution's roles. */
import type {
  Conv3dBwDataArgs,
  Conv3dBwEpilogueArgs,
  Conv3dDwArgs,
  Conv3dFwArgs,
} from './arguments.js';

/** Arguments of `runFw`: y = alpha · convTranspose(x, w) + beta · y (then the descriptor's epilogue: `bias` `[cOut]`, `z` and `preActivation` y's shape); x `[N, cIn, in]`, w `[cIn, cOut/groups, k]`, y `[N, cOut, out]`. */
export type ConvTranspose3dFwArgs = Conv3dFwArgs;
/** Arguments of `runBwData`: dx = alpha · (the adjoint in x)(dy, w) + beta · dx (then, with an input activation, dx · act'(`x` or `preActivation`)); dy `[N, cOut, out]`, dx `[N, cIn, in]`. */
export type ConvTranspose3dBwDataArgs = Conv3dBwDataArgs;
/** Arguments of `runDw`: dw = alpha · (the adjoint in w)(x, dy) + beta · dw; dw `[cIn, cOut/groups, k]`. */
export type ConvTranspose3dDwArgs = Conv3dDwArgs;
/** Arguments of `runBwEpilogue`: as Conv3dPlan's, every tensor y's shape `[N, cOut, out]`, dBias `[cOut]`. */
export type ConvTranspose3dBwEpilogueArgs = Conv3dBwEpilogueArgs;
