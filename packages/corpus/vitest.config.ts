import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    // Our other packages' dist/ loaded by Node as built, not transformed again by vitest.
    server: { deps: { external: [/\/packages\/[a-z-]+\/dist\//] } },
  },
});
