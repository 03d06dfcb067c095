/**
 * The case list, the same in the parent and in every child: each target's valid call, then each
 * slot swept with each value its kind names. Ids are stable (`<target>/<slot>=<value>`), so a
 * failure's id is its reproducer (`--case <id>`).
 */
import { SLOT_KINDS, valuesOf } from './expectations.js';
import type { CaseRef, PackageCorpus } from './model.js';

export function casesOf(corpora: readonly PackageCorpus[]): CaseRef[] {
  const cases: CaseRef[] = [];
  for (const corpus of corpora) {
    for (const target of corpus.targets) {
      cases.push({
        id: `${target.id}/valid`,
        target,
        slot: null,
        value: 'valid',
        acceptable: target.baselineAcceptable !== false,
      });
      for (const slot of target.slots) {
        const kind = SLOT_KINDS[slot.kind];
        if (kind === undefined)
          throw new Error(`corpus: ${target.id} uses unknown slot kind ${slot.kind}`);
        for (const value of valuesOf(kind, target.hasVictim === true)) {
          cases.push({
            id: `${target.id}/${slot.name}=${value}`,
            target,
            slot,
            value,
            acceptable: kind.accepts.includes(value),
          });
        }
      }
    }
  }
  const seen = new Set<string>();
  for (const c of cases) {
    if (seen.has(c.id)) throw new Error(`corpus: duplicate case id ${c.id}`);
    seen.add(c.id);
  }
  return cases;
}
