/**
 * The C fakes the cases run against, built the way the packages' own tests build them: through
 * the repository's one build helper for test-only C (scripts/testing/build-fake.mjs, which also
 * instruments them when BARACUDA_SANITIZE=1) where the checkout has it, else through the kernels
 * test helpers (which compile @baracuda/driver's test/fake-libcuda.c and @baracuda/cudnn-sys's
 * native/testing/fake_cudnn.c). $BARACUDA_CORPUS_FAKE_CUDA / $BARACUDA_CORPUS_FAKE_CUDNN name
 * prebuilt ones instead.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { useFakeCuda, useFakeCudnn } from '../../kernels/src/fake-cudnn.test-helpers.js';

export interface Fakes {
  cuda: string;
  cudnn: string;
}

interface BuildFake {
  buildFakeLibcudaLibrary(): string;
  buildFakeCudnnLibrary(): string;
}

/** packages/corpus/dist (or src) → the repository root. */
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BUILD_FAKE = join(REPO_ROOT, 'scripts', 'testing', 'build-fake.mjs');

/** The kernels helpers, which also point this process's env at what they build. */
function viaKernelsHelpers(): { cuda: string | null; cudnn: string | null } {
  const saved = {
    BARACUDA_CUDA_DRIVER_LIBRARY: process.env.BARACUDA_CUDA_DRIVER_LIBRARY,
    BARACUDA_CUDNN_LIBRARY: process.env.BARACUDA_CUDNN_LIBRARY,
  };
  const built = { cuda: useFakeCuda(), cudnn: useFakeCudnn() };
  // Only the children should load the fakes.
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  return built;
}

export async function buildFakes(): Promise<Fakes> {
  let built: { cuda: string | null; cudnn: string | null };
  if (existsSync(BUILD_FAKE)) {
    const helper = (await import(pathToFileURL(BUILD_FAKE).href)) as BuildFake;
    built = { cuda: helper.buildFakeLibcudaLibrary(), cudnn: helper.buildFakeCudnnLibrary() };
  } else {
    built = viaKernelsHelpers();
  }
  const cuda = process.env.BARACUDA_CORPUS_FAKE_CUDA || built.cuda;
  const cudnn = process.env.BARACUDA_CORPUS_FAKE_CUDNN || built.cudnn;
  if (!cuda || !cudnn) {
    throw new Error(
      'corpus: could not build the C fakes (is `cc` installed?); set BARACUDA_CORPUS_FAKE_CUDA and BARACUDA_CORPUS_FAKE_CUDNN to prebuilt ones',
    );
  }
  return { cuda, cudnn };
}
