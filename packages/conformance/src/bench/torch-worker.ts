/**
 * PyTorch as a worker process (`torch_conv3d_bench.py --serve --column <c>`): one JSON request per
 * line on its stdin, one JSON reply per line on its stdout. `bench --vs-torch` runs one per PyTorch
 * column and takes turns with them group by group, round by round, so every side is timed seconds
 * apart, on the same GPU state. Nothing here blocks the event loop, and nothing throws: a failure
 * is a reply with an error.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { relativeSpread } from './compare.js';
import { median } from './math.js';
import {
  isRecord,
  lineReader,
  parseTorchInfo,
  parseTorchRows,
  spawnErrorText,
  torchJobRows,
} from './torch.js';
import type { BenchGroup, TorchColumn, TorchInfo, TorchRowResult } from './types.js';

/** A worker's reply: the parsed JSON object, or why there is none. */
export type WorkerReply =
  | { ok: true; reply: Record<string, unknown> }
  | { ok: false; error: string };

interface Pending {
  resolve: (reply: WorkerReply) => void;
  timer: NodeJS.Timeout;
}

/** The worker process and its line protocol; one request in flight at a time. */
export class TorchWorker {
  readonly #child: ChildProcess;
  #pending: Pending | null = null;
  #stderrTail = '';
  /** Why the worker can take no more requests, once it cannot. */
  #dead: string | null = null;
  readonly #exited: Promise<void>;

  /**
   * Spawn `python script --serve --column <column>`. Its stderr lines go to `onLine`; a spawn
   * failure (a missing interpreter) shows as the error of the first request.
   */
  constructor(
    python: string,
    script: string,
    onLine: (line: string) => void = () => {},
    column: TorchColumn = 'tuned',
  ) {
    this.#child = spawn(python, [script, '--serve', '--column', column], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: process.env,
    });
    const replies = lineReader((line) => {
      if (line.trim()) this.#settle(parseReply(line.trim()));
    });
    const logs = lineReader(onLine);
    this.#child.stdout?.on('data', (chunk: Buffer) => replies.push(chunk.toString('utf8')));
    this.#child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.#stderrTail = (this.#stderrTail + text).slice(-2000);
      logs.push(text);
    });
    // A write to a worker that has gone fails here, after the exit below has said why.
    this.#child.stdin?.on('error', () => {});
    this.#exited = new Promise((resolve) => {
      this.#child.on('error', (error: NodeJS.ErrnoException) => {
        this.#fail(
          error.code === 'ENOENT'
            ? spawnErrorText(python, error)
            : `the PyTorch worker could not start: ${error.message}`,
        );
        resolve();
      });
      this.#child.on('close', (code, signal) => {
        const tail = this.#stderrTail.trim().split('\n').slice(-3).join(' / ');
        this.#fail(`the PyTorch worker exited (${code ?? signal})${tail ? `: ${tail}` : ''}`);
        resolve();
      });
    });
  }

  /** Why the worker is gone, or null while it serves. */
  get dead(): string | null {
    return this.#dead;
  }

  /**
   * Send one request and wait for its reply, at most `timeoutMs`; past that the worker is killed
   * (it may be stuck in the GPU) and this and every later request get an error.
   */
  request(message: Record<string, unknown>, timeoutMs: number): Promise<WorkerReply> {
    if (this.#dead) return Promise.resolve({ ok: false, error: this.#dead });
    if (this.#pending) {
      return Promise.resolve({ ok: false, error: 'a PyTorch worker request is already in flight' });
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#fail(`the PyTorch worker gave no reply to ${String(message.op)} in ${timeoutMs} ms`);
        this.#child.kill('SIGKILL');
      }, timeoutMs);
      this.#pending = { resolve, timer };
      this.#child.stdin?.write(`${JSON.stringify(message)}\n`);
    });
  }

  /** Ask the worker to quit, and kill it if it has not within `graceMs`. */
  async close(graceMs = 5_000): Promise<void> {
    if (!this.#dead) {
      await this.request({ op: 'quit' }, graceMs);
      this.#child.stdin?.end();
    }
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }

  #settle(reply: WorkerReply): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = null;
    clearTimeout(pending.timer);
    pending.resolve(reply);
  }

  #fail(reason: string): void {
    this.#dead ??= reason;
    this.#settle({ ok: false, error: this.#dead });
  }
}

/** One reply line: `{"ok": true, ...}`, or an error naming what the worker said. */
export function parseReply(line: string): WorkerReply {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return {
      ok: false,
      error: `the PyTorch worker wrote a line that is not JSON: ${line.slice(0, 200)}`,
    };
  }
  if (!isRecord(raw))
    return { ok: false, error: `the PyTorch worker replied ${line.slice(0, 200)}` };
  if (raw.ok !== true) {
    return {
      ok: false,
      error:
        typeof raw.error === 'string'
          ? raw.error
          : `the PyTorch worker replied ${line.slice(0, 200)}`,
    };
  }
  return { ok: true, reply: raw };
}

/** What the runner asks of one PyTorch column when the sides take turns. */
export interface TorchTurns {
  /** Start PyTorch; its versions, device and search settings, or why it cannot run. */
  start(): Promise<{ info?: TorchInfo; error?: string; notes: string[] }>;
  /** One round of a group's rows: one result per pass, never throws. */
  round(group: BenchGroup, round: number): Promise<TorchRowResult[]>;
  /** Free the group's tensors. */
  release(): Promise<void>;
  /** Its versions now that a convolution has loaded cuDNN; the worker is closed after. */
  finish(): Promise<{ info?: TorchInfo; notes: string[] }>;
  /** Close the worker (after a failed start). */
  close(): Promise<void>;
}

/** The settings the worker's requests carry. */
export interface TurnSettings {
  warmup: number;
  reps: number;
  /** Per request, ms; the first round of a group includes cuDNN's benchmark search (tuned). */
  timeoutMs: number;
}

/** TorchTurns over a TorchWorker. */
export function workerTurns(worker: TorchWorker, settings: TurnSettings): TorchTurns {
  return {
    async start() {
      const hello = await worker.request({ op: 'hello' }, settings.timeoutMs);
      if (!hello.ok) return { error: hello.error, notes: [] };
      const errors = Array.isArray(hello.reply.errors)
        ? hello.reply.errors.filter((e): e is string => typeof e === 'string')
        : [];
      const info = isRecord(hello.reply.info) ? parseTorchInfo(hello.reply.info) : undefined;
      return { ...(info ? { info } : {}), notes: errors.map((e) => `PyTorch: ${e}`) };
    },
    async round(group) {
      const rows = torchJobRows(group);
      const reply = await worker.request(
        { op: 'group', rows, warmup: settings.warmup, reps: settings.reps },
        settings.timeoutMs,
      );
      const errors: string[] = [];
      const got =
        reply.ok && Array.isArray(reply.reply.rows) ? parseTorchRows(reply.reply.rows, errors) : [];
      const why = reply.ok ? errors.join('; ') || 'no result for this row' : reply.error;
      return rows.map(
        (row) => got.find((r) => r.id === row.id) ?? { id: row.id, status: 'error', note: why },
      );
    },
    async release() {
      await worker.request({ op: 'release' }, settings.timeoutMs);
    },
    async finish() {
      const reply = await worker.request({ op: 'hello' }, settings.timeoutMs);
      const notes: string[] = [];
      let info: TorchInfo | undefined;
      if (reply.ok && isRecord(reply.reply.info)) info = parseTorchInfo(reply.reply.info);
      else if (!reply.ok) notes.push(`PyTorch's versions were not read at the end: ${reply.error}`);
      await worker.close();
      return { ...(info ? { info } : {}), notes };
    },
    async close() {
      await worker.close();
    },
  };
}

/**
 * One row's PyTorch results over the rounds as one result: the median of the round medians, each
 * round's median in `roundsMs`, the first round's first-call time and cuDNN verdict. A row with a
 * failed round keeps the rounds it has; one with none is the first failure.
 */
export function combineTorchRounds(rounds: readonly TorchRowResult[]): TorchRowResult {
  const timed = rounds.filter((r) => r.status === 'ok' && typeof r.medianMs === 'number');
  const first = rounds[0]!;
  if (timed.length === 0) return first;
  const roundsMs = timed.map((r) => r.medianMs!);
  const combined: TorchRowResult = {
    ...first,
    status: 'ok',
    medianMs: median(roundsMs),
    reps: timed.reduce((sum, r) => sum + (r.reps ?? 0), 0),
    roundsMs,
    ...(roundsMs.length > 1 ? { spread: relativeSpread(roundsMs) } : {}),
  };
  delete combined.note;
  if (timed.length < rounds.length) {
    const failed = rounds.find((r) => r.status !== 'ok');
    combined.note = `${rounds.length - timed.length} of ${rounds.length} rounds failed${failed?.note ? `: ${failed.note}` : ''}`;
  }
  return combined;
}
