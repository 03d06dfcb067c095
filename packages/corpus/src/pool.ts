/**
 * Runs cases in child processes, `jobs` at a time, a batch of cases per child. A child that dies
 * mid-case (a signal, an abort, any exit before its last `done`) gets the case it was running
 * re-run alone in a fresh process; if that does not crash, the case is reported as crashing only
 * after the cases its batch ran before it (its reproducer lists them), and those are re-run in
 * small batches, so one that crashes alone is isolated the same way. A case that runs past the timeout is killed and counted as a hang. The cases a dead
 * child did not reach go back to the queue.
 */
import { spawn } from 'node:child_process';
import { classify } from './classify.js';
import type { CaseRef, CaseResult, Observation } from './model.js';

/** How many case timeouts a child may spend making one package's fixtures (before its first case). */
const LOAD_TIMEOUT_FACTOR = 6;

export interface PoolOptions {
  jobs: number;
  batchSize: number;
  timeoutMs: number;
  /** The child command: e.g. ['node'] or ['node', '--expose-gc']. */
  command: readonly string[];
  childScript: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  onResult?: (result: CaseResult) => void;
}

/** Batch size for re-running the cases that ran before a crash that needs them. */
const RECHECK_BATCH = 20;

interface Batch {
  cases: CaseRef[];
  /** A re-run of one case alone, after its batch crashed on it. */
  confirming?: { predecessors: CaseRef[]; crash: string };
}

interface ChildEnd {
  done: Map<string, Observation | { setup: string }>;
  late: Map<string, Observation>;
  started: string[];
  crash: string | null;
  timedOut: string | null;
}

function runChild(batch: Batch, options: PoolOptions): Promise<ChildEnd> {
  return new Promise((resolve) => {
    const [command, ...args] = options.command;
    const child = spawn(command!, [...args, options.childScript], {
      cwd: options.cwd,
      env: { ...options.env, BARACUDA_CORPUS_CASES: batch.cases.map((c) => c.id).join('\n') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const end: ChildEnd = {
      done: new Map(),
      late: new Map(),
      started: [],
      crash: null,
      timedOut: null,
    };
    let stdout = '';
    let stderr = '';
    let inFlight: string | null = null;
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms = options.timeoutMs) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        end.timedOut = inFlight ?? batch.cases[0]!.id;
        child.kill('SIGKILL');
      }, ms);
    };
    arm();
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      let newline = stdout.indexOf('\n');
      while (newline >= 0) {
        const line = stdout.slice(0, newline);
        stdout = stdout.slice(newline + 1);
        newline = stdout.indexOf('\n');
        if (!line.startsWith('@@corpus ')) continue;
        const message = JSON.parse(line.slice(9)) as {
          t: string;
          id?: string;
          seen?: Observation;
          setup?: string;
        };
        if (message.t === 'start' && message.id) {
          inFlight = message.id;
          end.started.push(message.id);
          arm();
        } else if (message.t === 'loading') {
          arm(LOAD_TIMEOUT_FACTOR * options.timeoutMs); // making a package's fixtures
        } else if (message.t === 'loaded') {
          arm(); // the package's fixtures are made: the case's own timeout starts
        } else if (message.t === 'done' && message.id) {
          inFlight = null;
          end.done.set(
            message.id,
            message.setup !== undefined ? { setup: message.setup } : message.seen!,
          );
        } else if (message.t === 'late') {
          const id = message.id ?? end.started.at(-1);
          if (id !== undefined && message.seen) end.late.set(id, message.seen);
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const clean = code === 0 && signal === null && end.done.size === batch.cases.length;
      if (!clean && end.timedOut === null) {
        const tail = stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 400);
        end.crash = `${signal ? `signal ${signal}` : `exit code ${code}`}${tail ? `; stderr: ${tail}` : ''}`;
      }
      resolve(end);
    });
  });
}

/** Runs every case; resolves with one result per case, in the order of `cases`. */
export async function runPool(
  cases: readonly CaseRef[],
  options: PoolOptions,
): Promise<CaseResult[]> {
  const results = new Map<string, CaseResult>();
  const queue: Batch[] = [];
  for (let i = 0; i < cases.length; i += options.batchSize) {
    queue.push({ cases: cases.slice(i, i + options.batchSize) });
  }
  const record = (c: CaseRef, outcome: CaseResult['outcome'], detail: string) => {
    const result: CaseResult = { id: c.id, pkg: c.target.pkg, outcome, detail };
    results.set(c.id, result);
    options.onResult?.(result);
  };
  const settle = (c: CaseRef, seen: Observation | { setup: string }, late?: Observation) => {
    if ('setup' in seen)
      return record(c, 'untyped', `corpus setup failed: ${seen.setup.split('\n')[0]}`);
    const { outcome, detail } = classify(c, seen);
    if (late !== undefined && outcome !== 'signal' && outcome !== 'hang') {
      return record(
        c,
        'untyped',
        `after the call: ${late.kind === 'threw' ? `${late.name}: ${late.message}` : 'late'}`,
      );
    }
    record(c, outcome, detail);
  };

  const step = async (batch: Batch): Promise<void> => {
    const end = await runChild(batch, options);
    const byId = new Map(batch.cases.map((c) => [c.id, c]));
    for (const [id, seen] of end.done) settle(byId.get(id)!, seen, end.late.get(id));
    const rest = batch.cases.filter((c) => !end.done.has(c.id));
    if (end.timedOut !== null) {
      const hung = byId.get(end.timedOut)!;
      record(hung, 'hang', `no answer within ${options.timeoutMs} ms`);
      const after = rest.filter((c) => c !== hung);
      if (after.length > 0) queue.push({ cases: after });
      return;
    }
    if (end.crash === null) return;
    // The case the child was running (or its last one, for a crash after the last `done`).
    const suspectId =
      end.started.find((id) => !end.done.has(id)) ?? end.started.at(-1) ?? batch.cases[0]!.id;
    const suspect = byId.get(suspectId)!;
    const after = rest.filter((c) => c !== suspect);
    if (after.length > 0) queue.push({ cases: after });
    if (batch.cases.length === 1) {
      record(suspect, 'signal', end.crash);
      return;
    }
    const predecessors = batch.cases.slice(0, batch.cases.indexOf(suspect));
    queue.push({ cases: [suspect], confirming: { predecessors, crash: end.crash } });
  };

  const confirmStep = async (batch: Batch): Promise<void> => {
    const confirming = batch.confirming!;
    const end = await runChild(batch, options);
    const c = batch.cases[0]!;
    if (end.crash !== null || end.timedOut !== null) {
      if (end.timedOut !== null) record(c, 'hang', `no answer within ${options.timeoutMs} ms`);
      else record(c, 'signal', end.crash!);
      return;
    }
    // Alone it survives: the crash needs the cases before it. Re-run each of those alone.
    const seen = end.done.get(c.id);
    const alone =
      seen === undefined ? 'no answer' : 'setup' in seen ? seen.setup : classify(c, seen).detail;
    const sequence = [...confirming.predecessors, c].map((p) => `--case '${p.id}'`).join(' ');
    // `--case` given several times runs them in order in one child: the reproducer.
    record(
      c,
      'signal',
      `${confirming.crash}; only after the ${confirming.predecessors.length} cases before it in one process (alone: ${alone}); reproducer: node packages/corpus/dist/cli.js ${sequence}`,
    );
    // The cases before it, again in small batches: one that crashes alone is found by the same
    // isolation (each round is smaller than the batch it came from, so this ends).
    const previous = confirming.predecessors;
    for (let i = 0; i < previous.length; i += RECHECK_BATCH) {
      queue.push({ cases: previous.slice(i, i + RECHECK_BATCH) });
    }
  };

  const worker = async (): Promise<void> => {
    for (let batch = queue.shift(); batch !== undefined; batch = queue.shift()) {
      await (batch.confirming ? confirmStep(batch) : step(batch));
    }
  };
  // Workers pick up batches that crashes put back, until the queue stays empty.
  while (queue.length > 0) {
    await Promise.all(Array.from({ length: options.jobs }, worker));
  }
  return cases.map((c) => results.get(c.id)!).filter((r) => r !== undefined);
}
