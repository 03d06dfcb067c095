import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // One process per test file: the driver is loaded once per process, and
    // several files pick their libcuda through BARACUDA_CUDA_DRIVER_LIBRARY.
    pool: 'forks',
    isolate: true,
    // Lets fake-driver.test.ts prove that buffers the GC reaches are freed.
    execArgv: ['--expose-gc'],
    testTimeout: 60_000,
  },
});
