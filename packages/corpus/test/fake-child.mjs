// A stand-in for dist/child.js in pool.test.ts: speaks the same protocol, and does what the last
// segment of each case id says (crash, hang, accept, refuse, throw untyped, poison the process).
import { writeSync } from 'node:fs';

const emit = (message) => writeSync(1, `@@corpus ${JSON.stringify(message)}\n`);
const ids = (process.env.BARACUDA_CORPUS_CASES ?? '').split('\n').filter(Boolean);
let poisoned = false;
for (const id of ids) {
  emit({ t: 'start', id });
  const action = id.split('/').pop();
  if (action === 'crash') process.kill(process.pid, 'SIGKILL');
  if (action === 'exit') process.exit(3);
  if (action === 'hang') for (;;) {}
  if (action === 'poison') poisoned = true;
  if (action === 'victim' && poisoned) process.kill(process.pid, 'SIGKILL');
  if (action === 'late')
    emit({
      t: 'late',
      id,
      seen: { kind: 'threw', name: 'TypeError', message: 'in a callback', typed: false },
    });
  const seen =
    action === 'untyped'
      ? { kind: 'threw', name: 'TypeError', message: 'boom', typed: false }
      : action === 'typed'
        ? {
            kind: 'threw',
            name: 'InvalidArgumentError',
            message: 'Expected …',
            typed: true,
            code: 'BARACUDA_INVALID_ARGUMENT',
          }
        : { kind: 'returned', preview: 'undefined' };
  emit({ t: 'done', id, seen });
}
