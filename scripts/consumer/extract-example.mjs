// Prints the README's example: the first ```ts block after the marker line
// `<!-- consumer-test: the example -->` in README.md, verbatim. scripts/consumer/test.sh
// type-checks and runs exactly that, so the README and the test cannot drift apart.
import { readFileSync } from 'node:fs';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const marker = readme.indexOf('<!-- consumer-test: the example -->');
if (marker < 0) throw new Error('README.md has no <!-- consumer-test: the example --> marker');
const block = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(marker));
if (!block) throw new Error('README.md has no ```ts block after the consumer-test marker');
process.stdout.write(`${block[1]}\n`);
