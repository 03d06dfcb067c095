/**
 * The bundled CLI runs with plain `node` and nothing beside it: no node_modules, no addons.
 * Needs `pnpm build` first (turbo's test task depends on build).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const bundle = join(import.meta.dirname, '..', '..', 'dist', 'cli.cjs');

function runAlone(...args: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-cli-'));
  copyFileSync(bundle, join(dir, 'cli.cjs'));
  // No BARACUDA_ADDON_DIR and no CUDA_VISIBLE_DEVICES games: the file must stand on its own.
  const env = { ...process.env };
  delete env.BARACUDA_ADDON_DIR;
  delete env.NODE_OPTIONS;
  return spawnSync(process.execPath, ['cli.cjs', ...args], {
    cwd: dir,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('dist/cli.cjs', () => {
  it('exists (run `pnpm --filter @baracuda/conformance build` first)', () => {
    expect(existsSync(bundle)).toBe(true);
  });

  it('inlines every package: no require of node_modules, no bare import.meta', () => {
    const text = readFileSync(bundle, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    const required = [...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
    const nonBuiltin = required.filter(
      (name) => !builtinModules.includes(name.replace(/^node:/, '')),
    );
    expect(nonBuiltin).toEqual([]);
    expect(text).not.toMatch(/require\("@baracuda\//);
    expect(text).not.toMatch(/\bimport\.meta\.(url|dirname|filename)/);
  });

  it('--help exits 0', () => {
    const result = runAlone('--help');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: baracuda <command> \[options\]/);
  });

  it('--version prints the package version, inlined at build time', () => {
    const { version } = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'),
    );
    const result = runAlone('--version');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });

  it('doctor without a GPU says what to do and exits 1', () => {
    const result = runAlone('doctor');
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/No GPU run is possible here\. What to do:\n {2}- /);
  });

  it('check without a GPU says so and exits non-zero', () => {
    const result = runAlone('check', '--no-extras');
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^No GPU: /);
    expect(result.stderr).toMatch(
      /Nothing was checked: check needs an NVIDIA GPU with its driver and cuDNN 9\.\n$/,
    );
  });

  it('demo exits 0 without a GPU, running the CPU reference', () => {
    const result = runAlone('demo', '--cpu');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/CPU f64 reference on a reduced layer: n=1 c=8→8 in=32×32×32/);
    const plain = runAlone('demo');
    expect(plain.status).toBe(0);
  }, 60_000);

  it('in place (as `pnpm demo` runs it), finds the addons copied beside it by the build', () => {
    const dist = join(import.meta.dirname, '..', '..', 'dist');
    expect(existsSync(join(dist, 'baracuda_driver.node'))).toBe(true);
    expect(existsSync(join(dist, 'baracuda_cudnn.node'))).toBe(true);
    const env = { ...process.env };
    delete env.BARACUDA_ADDON_DIR;
    const result = spawnSync(process.execPath, [bundle, 'demo'], {
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const output = `${result.stdout}${result.stderr}`;
    expect(result.status).toBe(0);
    expect(output).not.toMatch(/Could not load baracuda_(driver|cudnn)\.node/);
    // With the addons loaded, what is missing on a machine without a GPU is the driver itself.
    if (!/NVIDIA H|device: /.test(output)) expect(output).toMatch(/libcuda\.so\.1/);
  });
});
