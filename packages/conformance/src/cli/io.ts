/** Where the CLI writes. Tests pass a recorder; the binary passes the console. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /**
   * Replaces the one updating progress line ('' clears it). Present only when stderr is a
   * terminal; without it, long work reports in plain lines (or not at all).
   */
  status?: (text: string) => void;
}

/** The console: a progress line on stderr when it is a terminal, cleared before any other line. */
export function consoleIo(stderr: NodeJS.WriteStream = process.stderr): CliIo {
  let shown = false;
  const clear = () => {
    if (shown) stderr.write('\r\x1b[K');
    shown = false;
  };
  const io: CliIo = {
    out: (line) => {
      clear();
      process.stdout.write(`${line}\n`);
    },
    err: (line) => {
      clear();
      stderr.write(`${line}\n`);
    },
  };
  if (stderr.isTTY) {
    io.status = (text) => {
      clear();
      if (text === '') return;
      const width = Math.max(20, (stderr.columns || 80) - 1);
      stderr.write(text.length > width ? `${text.slice(0, width - 1)}…` : text);
      shown = true;
    };
  }
  return io;
}

/**
 * Autotune's progress (Conv3dPlan's onProgress): the updating line on a terminal, else one plain
 * line on stderr per message.
 */
export function autotuneProgress(io: CliIo): (message: string) => void {
  return (message) => {
    if (io.status) io.status(`autotune: ${message}`);
    else io.err(`baracuda autotune: ${message}`);
  };
}
