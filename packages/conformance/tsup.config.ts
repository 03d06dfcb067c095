import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const benchEntry = fileURLToPath(new URL('./src/bench/index.ts', import.meta.url));

export default defineConfig([
  {
    // The library: ESM + CJS + types.
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    shims: true,
  },
  {
    // The CLI: one CommonJS file that plain `node` runs with no node_modules beside it. Every
    // workspace package and dependency is inlined; the native addons are loaded by path at run
    // time ($BARACUDA_ADDON_DIR, build/Release, or beside this file).
    entry: { cli: 'src/cli/main.ts' },
    format: ['cjs'],
    outExtension: () => ({ js: '.cjs' }),
    platform: 'node',
    target: 'node20',
    noExternal: [/.*/],
    dts: false,
    clean: false,
    sourcemap: false,
    shims: true,
    splitting: false,
    banner: { js: '#!/usr/bin/env node' },
    // `baracuda --version` (src/cli/version.ts).
    define: { __BARACUDA_VERSION__: JSON.stringify(version) },
    esbuildPlugins: [
      {
        // Until src/bench/index.ts exists, `bench` resolves to an empty module and the CLI says
        // "bench not built" instead of failing the build.
        name: 'optional-bench',
        setup(build) {
          build.onResolve({ filter: /^\.\.\/bench\/index\.js$/ }, (args) => {
            if (!args.importer.includes('/src/cli/')) return undefined;
            return existsSync(benchEntry)
              ? { path: benchEntry }
              : { path: 'bench-missing', namespace: 'optional-bench' };
          });
          build.onLoad({ filter: /.*/, namespace: 'optional-bench' }, () => ({
            contents: 'export {};',
            loader: 'js',
          }));
        },
      },
    ],
  },
]);
