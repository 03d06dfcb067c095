/** The CLI's dispatcher: `check`, `demo`, `bench`, `--help`. */
import { BaracudaError } from '@baracuda/types';
import type { GpuOpenResult } from '../check/gpu-api.js';
import { openGpu } from '../check/stack.js';
import { UsageError } from './args.js';
import { CHECK_HELP, checkCommand } from './check.js';
import { DEMO_HELP, demoCommand } from './demo.js';
import { type CliIo, consoleIo } from './io.js';

export const MAIN_HELP = `Usage: baracuda-conformance <command> [options]

Commands:
  demo     one 3-D U-Net layer, forward and backward, timed and checked (CPU reference without a GPU)
  check    the conformance table: every plan against the f64 CPU reference
  bench    timings against PyTorch on the same GPU

Run "baracuda-conformance <command> --help" for a command's options.

Native addons (baracuda_driver.node, baracuda_cudnn.node) are looked up in $BARACUDA_ADDON_DIR,
in the packages' build/Release, and beside this file. The CUDA driver (libcuda.so.1) and cuDNN 9
(libcudnn.so.9, or $BARACUDA_CUDNN_LIBRARY) are found at run time.`;

/** How the dispatcher reaches the GPU and the bench command; tests replace them. */
export interface CliDeps {
  io: CliIo;
  open: (ordinal: number) => Promise<GpuOpenResult>;
  loadBench: () => Promise<{ runBench(argv: string[]): Promise<number> }>;
}

const defaultDeps: CliDeps = {
  io: consoleIo,
  open: (ordinal) => openGpu({ ordinal }),
  loadBench: () => import('../bench/index.js'),
};

/** Run the CLI on `argv` (without node and the script). Returns the exit status; never throws. */
export async function main(argv: string[], deps: Partial<CliDeps> = {}): Promise<number> {
  const { io, open, loadBench } = { ...defaultDeps, ...deps };
  const [command, ...rest] = argv;
  const helps: Record<string, string> = { check: CHECK_HELP, demo: DEMO_HELP };
  try {
    switch (command) {
      case undefined:
        io.err(MAIN_HELP);
        return 2;
      case '-h':
      case '--help':
      case 'help':
        io.out(rest[0] && helps[rest[0]] ? helps[rest[0]]! : MAIN_HELP);
        return 0;
      case 'check':
        return await checkCommand(rest, io, open);
      case 'demo':
        return await demoCommand(rest, io, open);
      case 'bench': {
        let bench: Awaited<ReturnType<CliDeps['loadBench']>>;
        try {
          bench = await loadBench();
        } catch (error) {
          io.err(`bench not built: ${error instanceof Error ? error.message : String(error)}`);
          return 1;
        }
        if (typeof bench.runBench !== 'function') {
          io.err('bench not built: src/bench/index.ts does not export runBench');
          return 1;
        }
        return await bench.runBench(rest);
      }
      default:
        io.err(`Unknown command ${JSON.stringify(command)}.\n\n${MAIN_HELP}`);
        return 2;
    }
  } catch (error) {
    if (
      error instanceof UsageError ||
      (BaracudaError.isInstance(error) && error.code === 'BARACUDA_INVALID_ARGUMENT')
    ) {
      io.err(`${error.message}\n\n${command && helps[command] ? helps[command] : MAIN_HELP}`);
      return 2;
    }
    io.err(
      `${command} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return 1;
  }
}
