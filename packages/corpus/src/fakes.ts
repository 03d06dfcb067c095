/**
 * The C fakes the cases run against, built the way the packages' own tests build them: through
 * the repository's one build helper for test-only C (scripts/testing/build-fake.mjs, which also
 * instruments them when BARACUDA_SANITIZE=1). $BARACUDA_CORPUS_FAKE_CUDA,
 * $BARACUDA_CORPUS_FAKE_CUDNN, $BARACUDA_CORPUS_FAKE_NCCL and $BARACUDA_CORPUS_FAKE_CUBLASLT name
 * prebuilt ones instead.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface Fakes {
  cuda: string;
  cudnn: string;
  nccl: string;
  cublaslt: string;
}

interface BuildFake {
  buildFakeLibcudaLibrary(): string;
  buildFakeCudnnLibrary(): string;
  buildFakeNcclLibrary(): string;
  buildFakeCublasLtLibrary(): string;
}

/** packages/corpus/dist (or src) → the repository root. */
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BUILD_FAKE = join(REPO_ROOT, 'scripts', 'testing', 'build-fake.mjs');

function built(build: () => string): string | null {
  try {
    return build();
  } catch {
    return null;
  }
}

export async function buildFakes(): Promise<Fakes> {
  const helper = (await import(pathToFileURL(BUILD_FAKE).href)) as BuildFake;
  const cuda = process.env.BARACUDA_CORPUS_FAKE_CUDA || built(helper.buildFakeLibcudaLibrary);
  const cudnn = process.env.BARACUDA_CORPUS_FAKE_CUDNN || built(helper.buildFakeCudnnLibrary);
  const nccl = process.env.BARACUDA_CORPUS_FAKE_NCCL || built(helper.buildFakeNcclLibrary);
  const cublaslt =
    process.env.BARACUDA_CORPUS_FAKE_CUBLASLT || built(() => helper.buildFakeCublasLtLibrary());
  if (!cuda || !cudnn || !nccl || !cublaslt) {
    throw new Error(
      'corpus: could not build the C fakes (is `cc` installed?); set BARACUDA_CORPUS_FAKE_CUDA, BARACUDA_CORPUS_FAKE_CUDNN, BARACUDA_CORPUS_FAKE_NCCL and BARACUDA_CORPUS_FAKE_CUBLASLT to prebuilt ones',
    );
  }
  return { cuda, cudnn, nccl, cublaslt };
}
