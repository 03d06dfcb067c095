import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const here = new URL('..', import.meta.url).pathname;

/** Runs install.cjs from a copy of the package that looks like an npm install (no src/). */
function runInstall(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'baracuda-install-'));
  try {
    cpSync(join(here, 'install.cjs'), join(dir, 'install.cjs'));
    cpSync(join(here, 'package.json'), join(dir, 'package.json'));
    const result = spawnSync(process.execPath, ['install.cjs'], {
      cwd: dir,
      env: { PATH: '/nonexistent', ...env },
      encoding: 'utf8',
    });
    return { status: result.status, stderr: result.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('install.cjs (npm install step)', () => {
  it('is the same file in @baracuda/driver, @baracuda/cudnn-sys, @baracuda/nccl-sys and @baracuda/cublaslt-sys', () => {
    expect(readFileSync(join(here, 'install.cjs'), 'utf8')).toBe(
      readFileSync(join(here, '..', 'cudnn-sys', 'install.cjs'), 'utf8'),
    );
    expect(readFileSync(join(here, 'install.cjs'), 'utf8')).toBe(
      readFileSync(join(here, '..', 'nccl-sys', 'install.cjs'), 'utf8'),
    );
    expect(readFileSync(join(here, 'install.cjs'), 'utf8')).toBe(
      readFileSync(join(here, '..', 'cublaslt-sys', 'install.cjs'), 'utf8'),
    );
  });

  it('does nothing in a checkout of the monorepo', () => {
    const result = spawnSync(process.execPath, ['install.cjs'], { cwd: here, encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
  });

  it('without a prebuilt or a compiler, names the packages to install and does not fail', () => {
    const { status, stderr } = runInstall({});
    expect(status).toBe(0);
    expect(stderr).toContain('building it from source');
    expect(stderr).toContain('cannot build: missing cmake, a C++17 compiler (c++), cmake-js.');
    expect(stderr).toContain('Debian/Ubuntu: sudo apt-get install -y cmake g++');
    expect(stderr).toContain('RHEL/Fedora/Amazon Linux: sudo dnf install -y cmake gcc-c++');
    expect(stderr).toContain('npm install --no-save cmake-js@8');
  });

  it('fails a forced build from source that cannot run', () => {
    const { status, stderr } = runInstall({ BARACUDA_BUILD_FROM_SOURCE: '1' });
    expect(status).toBe(1);
    expect(stderr).toContain('BARACUDA_BUILD_FROM_SOURCE=1: building the addon from source');
  });
});
