/** Where the CLI writes. Tests pass a recorder; the binary passes the console. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/** The console. */
export const consoleIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
