/** The CLI's dispatcher: `doctor`, `demo`, `check`, `bench`, `--help`, `--version`. */
import { BaracudaError } from '@baracuda/types';
import type { GpuOpenResult } from '../check/gpu-api.js';
import { inspectStack, type StackReport } from '../check/inspect.js';
import { openGpu } from '../check/stack.js';
import { UsageError } from './args.js';
import { CHECK_HELP, checkCommand } from './check.js';
import { DEMO_HELP, demoCommand } from './demo.js';
import { DOCTOR_HELP, doctorCommand } from './doctor.js';
import { type CliIo, consoleIo } from './io.js';
import { unknownCommandLines, usageLines } from './usage.js';
import { cliVersion } from './version.js';

export const MAIN_HELP = `Usage: baracuda <command> [options]

Commands:
  doctor   what this machine has for a GPU run (driver, GPUs, cuDNN, errata) and what to do
  demo     one 3-D U-Net layer, forward and backward, timed and checked (CPU reference without a GPU)
  check    the conformance table: every plan against the f64 CPU reference
  bench    timings against PyTorch on the same GPU

Options:
  -h, --help      this text ("baracuda <command> --help" for a command's options)
  -V, --version   the version

Native addons (baracuda_driver.node, baracuda_cudnn.node) are looked up in $BARACUDA_ADDON_DIR,
the packages' build/Release, the @baracuda/native-<platform> package and beside this file. The
CUDA driver (libcuda.so.1, or $BARACUDA_CUDA_DRIVER_LIBRARY) and cuDNN 9 (libcudnn.so.9, or
$BARACUDA_CUDNN_LIBRARY) are found at run time.`;

/** How the dispatcher reaches the GPU and the bench command; tests replace them. */
export interface CliDeps {
  io: CliIo;
  open: (
    ordinal: number,
    options?: { onProgress?: (message: string) => void },
  ) => Promise<GpuOpenResult>;
  inspect: () => Promise<StackReport>;
  loadBench: () => Promise<{ runBench(argv: string[]): Promise<number> }>;
}

const defaultDeps = (): CliDeps => ({
  io: consoleIo(),
  open: (ordinal, options) => openGpu({ ordinal, ...options }),
  inspect: inspectStack,
  loadBench: () => import('../bench/index.js'),
});

const HELPS: Record<string, string> = { check: CHECK_HELP, demo: DEMO_HELP, doctor: DOCTOR_HELP };

async function benchCommand(argv: string[], io: CliIo, deps: CliDeps): Promise<number> {
  let bench: Awaited<ReturnType<CliDeps['loadBench']>>;
  try {
    bench = await deps.loadBench();
  } catch (error) {
    io.err(`bench not built: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  if (typeof bench.runBench !== 'function') {
    io.err('bench not built: src/bench/index.ts does not export runBench');
    return 1;
  }
  // -h works on every command: bench's own parser knows --help only.
  if (argv.includes('-h') || argv.includes('--help')) {
    return bench.runBench(argv[0] === 'merge' ? ['merge', '--help'] : ['--help']);
  }
  return bench.runBench(argv);
}

/** Run the CLI on `argv` (without node and the script). Returns the exit status; never throws. */
export async function main(argv: string[], deps: Partial<CliDeps> = {}): Promise<number> {
  const all = { ...defaultDeps(), ...deps };
  const { io } = all;
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
        io.err(MAIN_HELP);
        return 2;
      case '-h':
      case '--help':
      case 'help':
        if (rest[0] === 'bench') return await benchCommand(['--help'], io, all);
        io.out(rest[0] && HELPS[rest[0]] ? HELPS[rest[0]]! : MAIN_HELP);
        return 0;
      case '-V':
      case '--version':
      case 'version':
        io.out(cliVersion());
        return 0;
      case 'doctor':
        return await doctorCommand(rest, io, all.inspect);
      case 'check':
        return await checkCommand(rest, io, all.open);
      case 'demo':
        return await demoCommand(rest, io, all.open);
      case 'bench':
        return await benchCommand(rest, io, all);
      default:
        for (const line of unknownCommandLines(command)) io.err(line);
        return 2;
    }
  } catch (error) {
    if (
      error instanceof UsageError ||
      (BaracudaError.isInstance(error) && error.code === 'BARACUDA_INVALID_ARGUMENT')
    ) {
      for (const line of usageLines(command ?? '', error.message)) io.err(line);
      return 2;
    }
    io.err(
      `${command} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return 1;
  }
}
