import { describe, expect, it } from 'vitest';
import { missingAddonSolutions, nativePackageName } from './native-addon.js';

describe('missingAddonSolutions', () => {
  it('names the prebuilt package where one exists', () => {
    const [prebuilt, source, dir] = missingAddonSolutions(
      '@baracuda/driver',
      'baracuda_driver.node',
      'linux',
      'arm64',
    );
    expect(prebuilt).toBe(
      'Install the prebuilt addon: `npm install @baracuda/native-linux-arm64` (npm adds it with @baracuda/driver unless optional dependencies are omitted, e.g. by --omit=optional; it needs glibc 2.28 or newer)',
    );
    expect(source).toContain('`BARACUDA_BUILD_FROM_SOURCE=1 npm rebuild @baracuda/driver`');
    expect(dir).toBe('Or set BARACUDA_ADDON_DIR to the directory that holds baracuda_driver.node');
  });

  it('says that no prebuilt exists elsewhere, and how to build', () => {
    const [first] = missingAddonSolutions(
      '@baracuda/cudnn-sys',
      'baracuda_cudnn.node',
      'darwin',
      'arm64',
    );
    expect(first).toBe(
      'No prebuilt addon exists for darwin-arm64 (there are for linux-x64 and linux-arm64 with glibc 2.28+): build it from source',
    );
  });

  it('names the platform package', () => {
    expect(nativePackageName('linux', 'x64')).toBe('@baracuda/native-linux-x64');
  });
});
