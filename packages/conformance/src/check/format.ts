/** The check table, as text. */
import { formatError } from './conv.js';
import type { GpuInfo } from './gpu-api.js';
import type { CheckRow } from './rows.js';

const COLUMNS = [
  ['status', 11],
  ['case', 34],
  ['dtype', 5],
  ['layout', 6],
  ['pass', 8],
  ['algorithm', 40],
  ['rel.err', 9],
  ['tol', 8],
] as const;

function cell(text: string, width: number): string {
  return text.length >= width ? `${text} ` : text.padEnd(width + 1);
}

/** The header line of the table. */
export function formatHeader(): string {
  return COLUMNS.map(([name, width]) => cell(name, width))
    .join('')
    .trimEnd();
}

/** The label of a row's case column: extra checks are prefixed with their name. */
export function caseLabel(row: CheckRow): string {
  return row.check === 'conv' ? row.case : `[${row.check}] ${row.case}`;
}

/**
 * One table line, plus an indented second line with the reason for failures and unsupported
 * rows (and what extra checks measured).
 */
export function formatRow(row: CheckRow): string {
  const status = row.status === 'pass' ? 'PASS' : row.status === 'fail' ? 'FAIL' : 'unsupported';
  const algorithm = row.mode === '-' ? row.algorithm : `${row.mode}: ${row.algorithm}`;
  const isBytes = row.check.startsWith('leak');
  const measure = (value: number | null) =>
    value === null ? '-' : isBytes ? `${(value / 1048576).toFixed(1)}MiB` : formatError(value);
  const sampled = row.sampledPoints === null ? '' : ` (${row.sampledPoints} pts)`;
  const fields = [
    status,
    caseLabel(row),
    row.dtype,
    row.layout,
    row.pass,
    algorithm,
    `${measure(row.error)}`,
    `${measure(row.tolerance)}${sampled}`,
  ];
  const line = fields
    .map((text, i) => cell(text, COLUMNS[i]![1]))
    .join('')
    .trimEnd();
  const showDetail = row.detail && (row.status !== 'pass' || row.check !== 'conv');
  return showDetail ? `${line}\n    ${row.detail}` : line;
}

/** The lines at the top of every report: device, driver, cuDNN. */
export function formatGpuInfo(info: GpuInfo): string[] {
  const gib = (info.totalMemory / 1024 ** 3).toFixed(1);
  return [
    `device:  ${info.ordinal}: ${info.deviceName} (sm_${info.computeCapability.replace('.', '')}, ${gib} GiB)`,
    `driver:  CUDA ${info.driverVersion}`,
    `cuDNN:   ${info.cudnnVersion} (${info.cudnnPath || 'path unknown'})`,
  ];
}
