import { defineConfig } from 'tsup';

export default defineConfig({
  // cli.js schedules the cases; child.js runs a batch of them in its own process.
  entry: { cli: 'src/cli.ts', child: 'src/child.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  dts: false,
  clean: true,
  sourcemap: true,
  splitting: true,
  shims: true,
});
