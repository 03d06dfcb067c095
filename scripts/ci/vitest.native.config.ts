// The addons' packages' tests as one vitest run (each package a project with its own config):
// what the sanitizer job and the Node 24 job run. One run instead of five keeps both cores busy
// through each package's last files and starts vitest once (slow under ASan's preloaded runtime).
//   pnpm exec vitest run --config scripts/ci/vitest.native.config.ts
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      'packages/driver',
      'packages/cudnn-sys',
      'packages/nccl-sys',
      'packages/cublaslt-sys',
      'packages/collectives',
    ],
  },
});
