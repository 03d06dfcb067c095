/** `doctor`: what this machine has for a GPU run, and what to install or set when it is not enough. */
import type { StackReport } from '../check/inspect.js';
import { parseFlags } from './args.js';
import type { CliIo } from './io.js';
import { cliVersion } from './version.js';

export const DOCTOR_HELP = `Usage: baracuda doctor [options]

Reports the CUDA driver (version, library), every GPU, cuDNN (where it was found and which
version), the cuDNN errata in force, and what to install or set for whatever is missing.

Options:
  --json       print the report as JSON instead
  -h, --help   this text

Exit status: 0 when a GPU run is possible (a CUDA driver, at least one GPU and cuDNN 9),
1 when it is not, 2 for bad options.`;

/**
 * The CUDA driver our own PTX kernels need: the PTX declares ISA 8.0 (CUDA 12.0), see
 * packages/kernels/scripts/gen-ptx.mjs. An older driver still runs everything through cuDNN.
 */
export const PTX_MIN_DRIVER = { version: 12.0, label: '12.0 (r525)' };

function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

/** Whether a GPU run is possible with what `report` found. */
export function gpuRunPossible(report: StackReport): boolean {
  return report.driver.available && report.devices.length > 0 && report.cudnn.available;
}

/** The human-readable report. */
export function doctorLines(report: StackReport, environment: string): string[] {
  const lines = [`baracuda ${cliVersion()} doctor (${environment})`, ''];
  const { driver, cudnn } = report;
  lines.push(
    driver.available
      ? `CUDA driver  ${driver.version ?? 'unknown version'} (${driver.libraryPath ?? 'unknown path'})`
      : `CUDA driver  not found: ${driver.reason ?? 'no reason given'}`,
  );
  if (report.devices.length === 0) lines.push('GPUs         none');
  for (const device of report.devices) {
    lines.push(
      `GPU ${device.ordinal}        ${device.name} (sm_${device.computeCapability.replace('.', '')}, ${gib(device.totalMemory)})`,
    );
  }
  lines.push(
    cudnn.available
      ? `cuDNN        ${cudnn.version ?? 'unknown version'} (${cudnn.libraryPath ?? 'unknown path'})`
      : `cuDNN        not found: ${cudnn.reason ?? 'no reason given'}`,
  );
  if (driver.available && driver.version !== null) {
    const ok = Number(driver.version) >= PTX_MIN_DRIVER.version;
    lines.push(
      ok
        ? `our kernels  load (PTX ISA 8.0 needs a CUDA ${PTX_MIN_DRIVER.label} driver or newer)`
        : `our kernels  need a CUDA ${PTX_MIN_DRIVER.label} driver or newer; cuDNN runs those problems instead`,
    );
  }
  if (cudnn.available) {
    if (report.errata.length === 0) lines.push('errata       none for this cuDNN');
    for (const erratum of report.errata) {
      lines.push(`errata       ${erratum.id}: ${erratum.description}`);
    }
  }
  lines.push('');
  if (gpuRunPossible(report)) {
    lines.push('A GPU run is possible: try `baracuda demo`.');
  } else {
    lines.push('No GPU run is possible here. What to do:');
    for (const solution of report.solutions) lines.push(`  - ${solution}`);
  }
  return lines;
}

/** Where this process runs, for the first line: Node, platform, glibc. */
export function describeEnvironment(): string {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } })
    ?.header;
  const glibc = header?.glibcVersionRuntime ? `, glibc ${header.glibcVersionRuntime}` : '';
  return `Node ${process.version}, ${process.platform}-${process.arch}${glibc}`;
}

/** Run `doctor`. Returns the exit status. */
export async function doctorCommand(
  argv: string[],
  io: CliIo,
  inspect: () => Promise<StackReport>,
): Promise<number> {
  const { values } = parseFlags(argv, {
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(DOCTOR_HELP);
    return 0;
  }
  const report = await inspect();
  if (values.json) {
    io.out(JSON.stringify({ ...report, gpuRunPossible: gpuRunPossible(report) }, null, 2));
  } else {
    for (const line of doctorLines(report, describeEnvironment())) io.out(line);
  }
  return gpuRunPossible(report) ? 0 : 1;
}
