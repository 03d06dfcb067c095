/**
 * Entry of the bundled CLI (`dist/cli.cjs`): `node cli.cjs check|demo|bench`. Everything,
 * workspace packages included, is inlined by tsup; only the native addons stay outside.
 */
import { main } from './commands.js';

// `node cli.cjs check | head` closes stdout early: stop quietly instead of crashing on EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
    // Exit even if a native handle still holds the event loop; an unref'd timer never delays a
    // process that is already done.
    setTimeout(() => process.exit(status), 200).unref();
  },
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
