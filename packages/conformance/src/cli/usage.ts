/** Usage errors: one line saying what is wrong, one line saying where the help is. */

/** The names the dispatcher knows, in the order the help lists them. */
export const COMMANDS = ['doctor', 'demo', 'check', 'bench'] as const;

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The known command closest to `name`, if it is a likely typo (a prefix, or at most 2 edits). */
export function closestCommand(name: string): string | undefined {
  const lower = name.toLowerCase();
  const prefix = COMMANDS.find((command) => command.startsWith(lower) && lower.length >= 2);
  if (prefix) return prefix;
  let best: { command: string; edits: number } | undefined;
  for (const command of COMMANDS) {
    const edits = distance(lower, command);
    if (edits <= 2 && (!best || edits < best.edits)) best = { command, edits };
  }
  return best?.command;
}

/** The two lines for an unknown command. */
export function unknownCommandLines(name: string): [string, string] {
  const guess = closestCommand(name);
  return [
    `baracuda: unknown command ${JSON.stringify(name)}.${guess ? ` Did you mean "${guess}"?` : ''}`,
    'Run "baracuda --help" for the commands.',
  ];
}

/** The two lines for a bad option or value of `command`; only the message's first sentence. */
export function usageLines(command: string, message: string): [string, string] {
  const first = message.split('\n')[0]!;
  const sentence = /^(Unknown option '[^']+')/.exec(first)?.[1] ?? first;
  return [`baracuda ${command}: ${sentence}`, `Run "baracuda ${command} --help" for the options.`];
}
