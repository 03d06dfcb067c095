// Put the two native addons beside dist/cli.cjs. The CLI is one bundled file; the addons cannot be
// bundled, and their lookup includes the directory of the running file, so `node dist/cli.cjs`
// (and `pnpm demo` / `pnpm conformance` at the repository root) finds them there.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
mkdirSync(dist, { recursive: true });
for (const [pkg, file] of [
  ['driver', 'baracuda_driver.node'],
  ['cudnn-sys', 'baracuda_cudnn.node'],
]) {
  const from = join(here, '..', '..', pkg, 'build', 'Release', file);
  if (!existsSync(from)) {
    console.error(`copy-addons: ${from} is missing; build @baracuda/${pkg} first`);
    process.exit(1);
  }
  copyFileSync(from, join(dist, file));
}
