/**
 * What a user can do when a native addon (`baracuda_driver.node`, `baracuda_cudnn.node`) does not
 * load: the "Possible solutions" of the `LibraryNotFoundError` that `@baracuda/driver` and
 * `@baracuda/cudnn-sys` raise, written for someone who installed from npm.
 */

/** The platforms a prebuilt addon package exists for (`@baracuda/native-<platform>`). */
export const PREBUILT_PLATFORMS = ['linux-x64', 'linux-arm64'] as const;

/** The oldest glibc the prebuilt addons load on. */
export const PREBUILT_GLIBC_BASELINE = '2.28';

/** The prebuilt package's name for a platform, e.g. `@baracuda/native-linux-x64`. */
export function nativePackageName(platform: string, arch: string): string {
  return `@baracuda/native-${platform}-${arch}`;
}

/**
 * The "Possible solutions" for a missing addon of `packageName` (e.g. `@baracuda/driver`) on
 * `platform`/`arch` (Node's `process.platform` / `process.arch`).
 */
export function missingAddonSolutions(
  packageName: string,
  addonFile: string,
  platform: string,
  arch: string,
): string[] {
  const key = `${platform}-${arch}`;
  const prebuilt = (PREBUILT_PLATFORMS as readonly string[]).includes(key)
    ? `Install the prebuilt addon: \`npm install ${nativePackageName(platform, arch)}\` (npm adds it with ${packageName} unless optional dependencies are omitted, e.g. by --omit=optional; it needs glibc ${PREBUILT_GLIBC_BASELINE} or newer)`
    : `No prebuilt addon exists for ${key} (there are for ${PREBUILT_PLATFORMS.join(' and ')} with glibc ${PREBUILT_GLIBC_BASELINE}+): build it from source`;
  return [
    prebuilt,
    `Build it from source: \`BARACUDA_BUILD_FROM_SOURCE=1 npm rebuild ${packageName}\` (needs cmake 3.15+, a C++17 compiler and cmake-js: \`sudo apt-get install -y cmake g++\` or \`sudo dnf install -y cmake gcc-c++\`, then \`npm install --no-save cmake-js@8\`; no CUDA needed)`,
    `Or set BARACUDA_ADDON_DIR to the directory that holds ${addonFile}`,
  ];
}
