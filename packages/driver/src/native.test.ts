// The addon builds, loads without touching libcuda, exports exactly what
// NativeBinding describes, and rejects foreign or coerced arguments itself.
import { describe, expect, it } from 'vitest';
import { addonCandidates, loadAddon, loadAddonFrom } from './addon.js';
import { NATIVE_EXPORT_NAMES, type NativeBinding } from './native.js';

describe('the native addon', () => {
  it('exports exactly the NativeBinding interface', () => {
    const binding = loadAddon();
    expect(Object.keys(binding).sort()).toEqual([...NATIVE_EXPORT_NAMES].sort());
    for (const name of NATIVE_EXPORT_NAMES) expect(typeof binding[name]).toBe('function');
  });

  it('rejects foreign objects in place of handles with a TypeError, before loading the driver', () => {
    const binding = loadAddon() as unknown as Record<string, (...args: unknown[]) => unknown>;
    expect(() => binding.streamRaw?.({})).toThrow(
      new TypeError('Expected a native Stream handle for stream'),
    );
    expect(() => binding.eventQuery?.(42)).toThrow(
      new TypeError('Expected a native Event handle for event'),
    );
    expect(() => binding.memFree?.(null)).toThrow(
      new TypeError('Expected a native DeviceBuffer handle for handle'),
    );
    expect(() => binding.moduleGetFunction?.({}, 'kernel')).toThrow(
      new TypeError('Expected a native Module handle for module'),
    );
    expect(() => binding.moduleUnload?.(undefined)).toThrow(
      new TypeError('Expected a native Module handle for handle'),
    );
    expect(() => binding.launchKernel?.({}, 1, 1, 1, 1, 1, 1, 0, 0n, new Uint8Array(0))).toThrow(
      new TypeError('Expected a native KernelFunction handle for fn'),
    );
  });

  it('never coerces numbers', () => {
    const binding = loadAddon() as unknown as Record<string, (...args: unknown[]) => unknown>;
    expect(() => binding.memAlloc?.(0, 3.5, null)).toThrow(
      new TypeError('Expected an integer for byteLength'),
    );
    expect(() => binding.memAlloc?.(0, '16', null)).toThrow(
      new TypeError('Expected a number for byteLength'),
    );
    expect(() => binding.memAlloc?.(0, 16n, null)).toThrow(
      new TypeError('Expected a number for byteLength'),
    );
    expect(() => binding.memAlloc?.(Number.NaN, 16, null)).toThrow(
      new TypeError('Expected an integer for ordinal'),
    );
    expect(() => binding.memAlloc?.(0, -1, null)).toThrow(
      new RangeError('byteLength must be a non-negative safe integer'),
    );
    expect(() => binding.streamCreate?.(0, 1)).toThrow(
      new TypeError('Expected a boolean for nonBlocking'),
    );
    expect(() => binding.moduleLoadData?.(0, '.version 8.0')).toThrow(
      new TypeError('Expected a Uint8Array for image'),
    );
    expect(() => binding.moduleLoadData?.(0, new Uint16Array(2))).toThrow(
      new TypeError('Expected a Uint8Array for image'),
    );
    expect(() => binding.moduleLoadData?.(0, new Uint8Array(0))).toThrow(
      new RangeError('image must not be empty'),
    );
  });

  it('reports a missing addon as LibraryNotFoundError listing every candidate', () => {
    expect(() => loadAddonFrom(['/nonexistent/a.node', '/nonexistent/b.node'])).toThrow(
      'Could not load baracuda_driver.node (the @baracuda/driver native addon).\n' +
        'Searched:\n' +
        '  - /nonexistent/a.node: no such file\n' +
        '  - /nonexistent/b.node: no such file\n' +
        'Possible solutions:\n' +
        `  - Install the prebuilt addon: \`npm install @baracuda/native-${process.platform}-${process.arch}\` (npm adds it with @baracuda/driver unless optional dependencies are omitted, e.g. by --omit=optional; it needs glibc 2.28 or newer)\n` +
        '  - Build it from source: `BARACUDA_BUILD_FROM_SOURCE=1 npm rebuild @baracuda/driver` (needs cmake 3.15+, a C++17 compiler and cmake-js: `sudo apt-get install -y cmake g++` or `sudo dnf install -y cmake gcc-c++`, then `npm install --no-save cmake-js@8`; no CUDA needed)\n' +
        '  - Or set BARACUDA_ADDON_DIR to the directory that holds baracuda_driver.node',
    );
  });

  it('looks in BARACUDA_ADDON_DIR, the package build, the platform package, then beside the file', () => {
    const candidates = addonCandidates(
      { BARACUDA_ADDON_DIR: '/opt/addons' },
      '@baracuda/native-linux-x64',
    );
    expect(candidates[0]).toBe('/opt/addons/baracuda_driver.node');
    expect(candidates[1]).toMatch(/packages\/driver\/build\/Release\/baracuda_driver\.node$/);
    // The workspace links the x64 package into driver's node_modules.
    expect(candidates[2]).toMatch(/native-linux-x64\/baracuda_driver\.node$/);
    expect(candidates[3]).toMatch(/packages\/driver\/src\/baracuda_driver\.node$/);
    expect(addonCandidates({})).toHaveLength(3);
  });

  it('names a platform package that is not installed as such', () => {
    const candidates = addonCandidates({}, '@baracuda/native-plan9-mips');
    expect(candidates[1]).toBe(
      '@baracuda/native-plan9-mips/baracuda_driver.node (package not installed)',
    );
  });

  it('is typed: NativeBinding keys and NATIVE_EXPORT_NAMES agree', () => {
    const names: (keyof NativeBinding)[] = NATIVE_EXPORT_NAMES;
    expect(new Set(names).size).toBe(names.length);
  });
});
