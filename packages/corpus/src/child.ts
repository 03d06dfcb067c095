/**
 * One child process: runs the cases named in $BARACUDA_CORPUS_CASES (one id a line) in order and
 * reports each on stdout as `@@corpus {json}` lines: `start` before the call, `done` with what it
 * saw after. Written with writeSync, so a crash mid-case leaves a `start` with no `done`.
 */
import { writeSync } from 'node:fs';
import { BaracudaError } from '@baracuda/types';
import { casesOf } from './cases.js';
import type { CaseRef, Fixtures, Observation, PackageName, Prepared, SlotSpec } from './model.js';
import { CORPORA } from './targets/index.js';
import { drain } from './track.js';
import { makeValue } from './values.js';

function emit(message: Record<string, unknown>): void {
  writeSync(1, `@@corpus ${JSON.stringify(message)}\n`);
}

function thrown(error: unknown): Observation {
  const name =
    error instanceof Error ? error.constructor.name || error.name : `thrown ${typeof error}`;
  const message = error instanceof Error ? error.message : String(error);
  const typed = BaracudaError.isInstance(error);
  return {
    kind: 'threw',
    name,
    message: message.slice(0, 300),
    typed,
    ...(typed ? { code: (error as BaracudaError).code } : {}),
  };
}

function preview(value: unknown): string {
  try {
    return (typeof value === 'string' ? JSON.stringify(value) : String(value)).slice(0, 60);
  } catch {
    return typeof value;
  }
}

function returned(value: unknown): Observation {
  const shown = preview(value);
  if (typeof value === 'number') return { kind: 'returned', status: value, preview: shown };
  if (typeof value === 'object' && value !== null) {
    const status = (value as { status?: unknown }).status;
    if (typeof status === 'number') return { kind: 'returned', status, preview: shown };
  }
  return { kind: 'returned', preview: shown };
}

function holder(p: Prepared, slot: SlotSpec): { container: Record<string, unknown>; key: string } {
  if (slot.at.arg === 'this')
    return { container: p as unknown as Record<string, unknown>, key: 'self' };
  let container = p.args as unknown as Record<string, unknown>;
  let key = String(slot.at.arg);
  for (const step of slot.at.path ?? []) {
    container = container[key] as Record<string, unknown>;
    key = step;
  }
  return { container, key };
}

async function run(c: CaseRef, fixtures: Fixtures): Promise<Observation | { setup: string }> {
  let p: Prepared;
  try {
    p = c.target.prepare(fixtures);
    if (c.slot !== null) {
      const { container, key } = holder(p, c.slot);
      container[key] = makeValue(c.value, { fixtures, valid: container[key], victim: p.victim });
    }
  } catch (error) {
    drain(fixtures);
    return { setup: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  try {
    const result = p.call(p.self, p.args);
    return returned(
      typeof (result as Promise<unknown> | null)?.then === 'function' ? await result : result,
    );
  } catch (error) {
    return thrown(error);
  } finally {
    try {
      p.cleanup?.();
    } catch {
      // The case may have destroyed what cleanup frees.
    }
    drain(fixtures);
  }
}

/** A full GC after every case ($BARACUDA_CORPUS_GC_EACH=1); else once, after the batch. */
const GC_EACH = process.env.BARACUDA_CORPUS_GC_EACH === '1';
const collect = () => (globalThis as { gc?: () => void }).gc?.();

let current: string | undefined;
const late = (error: unknown) => emit({ t: 'late', id: current, seen: thrown(error) });
process.on('uncaughtException', late);
process.on('unhandledRejection', late);

async function main(): Promise<void> {
  // Keeps the loop alive while a promise that never settles is awaited: the parent's timeout,
  // not an early exit, decides that it hangs.
  const alive = setInterval(() => {}, 1 << 30);
  const ids = (process.env.BARACUDA_CORPUS_CASES ?? '').split('\n').filter(Boolean);
  const byId = new Map(casesOf(CORPORA).map((c) => [c.id, c]));
  const fixtures = new Map<PackageName, Fixtures>();
  for (const id of ids) {
    current = id;
    emit({ t: 'start', id });
    const c = byId.get(id);
    if (c === undefined) {
      emit({ t: 'done', id, setup: `no case ${id}` });
      continue;
    }
    let own = fixtures.get(c.target.pkg);
    if (own === undefined) {
      const corpus = CORPORA.find((k) => k.pkg === c.target.pkg)!;
      emit({ t: 'loading', id });
      own = await corpus.load();
      fixtures.set(c.target.pkg, own);
      // The case's own time starts now: loading a package (collectives makes its data-parallel
      // fixtures, several plan selections) has a longer timeout of its own.
      emit({ t: 'loaded', id });
    }
    const seen = await run(c, own);
    emit({ t: 'done', id, ...('setup' in seen ? { setup: seen.setup } : { seen }) });
    // Let callbacks and finalizers of this case run while it is still the current one.
    await new Promise((resolve) => setImmediate(resolve));
    if (GC_EACH) collect();
  }
  // Finalizers of the whole batch: a crash here sends the parent re-running each case alone.
  collect();
  current = undefined;
  clearInterval(alive);
}

await main();
