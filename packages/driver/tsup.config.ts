import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  shims: true,
  // Class names survive bundling: error messages describe a value by its constructor's name
  // ("an instance of DeviceBuffer", not "_DeviceBuffer", esbuild's inner alias).
  keepNames: true,
});
