import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    // No test touches the user's autotune cache (see the setup file).
    setupFiles: ['../../scripts/testing/isolate-autotune-cache.ts'],
    // Our other packages' dist/ loaded by Node as built, not transformed again by vitest.
    server: { deps: { external: [/\/packages\/[a-z-]+\/dist\//] } },
  },
});
