/**
 * The changes of call k in the crash and fault suites (crash-writer.ts here, apps/api/src/faults):
 * every op kind, and a note whose text is k, so a replay of the log shows at once whether a call
 * was lost or applied twice.
 */
import type { Change } from '../index.ts';

export function changesFor(k: number): Change[] {
  const changes: Change[] = [
    { op: 'add', name: `step:v${k}`, text: `call ${k}`, data: { k } },
    { op: 'add', name: `pair:v${k}`, text: `pair of call ${k}` },
  ];
  if (k > 1) {
    changes.push({ op: 'remove', name: `pair:v${k - 1}` });
    changes.push({ op: 'replace', name: 'counter:main', text: String(k) });
  } else {
    changes.push({ op: 'add', name: 'counter:main', text: String(k) });
  }
  return changes;
}
