/**
 * The C fakes the cases run against, built the way the packages' own tests build them (the
 * kernels test helpers compile @baracuda/driver's test/fake-libcuda.c and @baracuda/cudnn-sys's
 * native/testing/fake_cudnn.c). $BARACUDA_CORPUS_FAKE_CUDA / $BARACUDA_CORPUS_FAKE_CUDNN name
 * prebuilt ones instead (the sanitizer job builds them instrumented).
 */
import { useFakeCuda, useFakeCudnn } from '../../kernels/src/fake-cudnn.test-helpers.js';

export interface Fakes {
  cuda: string;
  cudnn: string;
}

export function buildFakes(): Fakes {
  const saved = {
    cuda: process.env.BARACUDA_CUDA_DRIVER_LIBRARY,
    cudnn: process.env.BARACUDA_CUDNN_LIBRARY,
  };
  const cuda = process.env.BARACUDA_CORPUS_FAKE_CUDA || useFakeCuda();
  const cudnn = process.env.BARACUDA_CORPUS_FAKE_CUDNN || useFakeCudnn();
  // The helpers point this process at the fakes; only the children should use them.
  for (const [key, value] of [
    ['BARACUDA_CUDA_DRIVER_LIBRARY', saved.cuda],
    ['BARACUDA_CUDNN_LIBRARY', saved.cudnn],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  if (!cuda || !cudnn) {
    throw new Error(
      'corpus: could not build the C fakes (is `cc` installed?); set BARACUDA_CORPUS_FAKE_CUDA and BARACUDA_CORPUS_FAKE_CUDNN to prebuilt ones',
    );
  }
  return { cuda, cudnn };
}
