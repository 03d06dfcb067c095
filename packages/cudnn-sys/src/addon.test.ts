import { describe, expect, it } from 'vitest';
import { addonCandidates } from './addon.js';

describe('addonCandidates', () => {
  it('looks in the package build, then the platform package, then beside the file', () => {
    const candidates = addonCandidates('@baracuda/native-linux-x64');
    const offset = process.env.BARACUDA_ADDON_DIR ? 1 : 0;
    expect(candidates[offset]).toMatch(
      /packages\/cudnn-sys\/build\/Release\/baracuda_cudnn\.node$/,
    );
    // The workspace links the x64 package into cudnn-sys's node_modules.
    expect(candidates[offset + 1]).toMatch(/native-linux-x64\/baracuda_cudnn\.node$/);
    expect(candidates[offset + 2]).toMatch(/packages\/cudnn-sys\/src\/baracuda_cudnn\.node$/);
  });

  it('names a platform package that is not installed as such', () => {
    const candidates = addonCandidates('@baracuda/native-plan9-mips');
    expect(candidates).toContain(
      '@baracuda/native-plan9-mips/baracuda_cudnn.node (package not installed)',
    );
  });
});
