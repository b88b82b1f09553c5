import type { Change, Link, QueryRow } from '@sponge/contract';
import type {
  ExplainResult,
  LoadResult,
  MemoryTools,
  QueryAnswer,
  ReadResult,
  RecallResult,
  RememberResult,
} from './memory-tools.ts';

export interface ReefScenarioOptions {
  /** Where the readable transcript goes, one line at a time; default: nowhere. */
  log?: (line: string) => void;
}

/** Every answer the scenario got, for tests to check. */
export interface ReefScenarioResult {
  load: LoadResult;
  /** The lead, the ruled-out dataset and the figure to check, in that order. */
  remembered: RememberResult[];
  notes: QueryAnswer;
  explained: ExplainResult;
  read: ReadResult;
  replaced: RememberResult;
  recalled: RecallResult;
}

export const REEF_NOTES = {
  lead: 'lead:reef-survey-2016',
  ruledOut: 'ruled-out:dataset-2014',
  todo: 'todo:check-figure-3',
} as const;

const short = (digest: string | null) => (digest === null ? 'removed' : `${digest.slice(0, 4)}...`);
const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);

function rowLine(r: QueryRow): string {
  const conflicts = r.conflicts.length > 0 ? `  conflicts with row ${r.conflicts.join(', ')}` : '';
  const label = r.source === 'note' ? 'note    ' : 'reviewed';
  return `    [${r.row}] ${label} ${r.name.padEnd(32)} ${short(r.digest)}${conflicts}`;
}

function changeLine(c: Change): string {
  if (c.op === 'remove') return `remove ${c.name}`;
  const links = c.links?.length ? `  links ${c.links.map((l) => `${l.rel} ${l.to}`).join(', ')}` : '';
  return `${c.op} ${c.name} ${quote(c.text)}${links}`;
}

/**
 * The reef-recovery scenario of the product description, played through the five tools as a
 * scripted model would call them: three notes (a lead, a dead end, a figure to check), the
 * current notes, why row 0 came back, one note read in full, one note replaced, and a recall.
 * Notes already in the session (a second run of the script) are replaced rather than added.
 *
 * @example
 * const memory = createMemoryTools({ url, runToken });
 * const transcript: string[] = [];
 * const result = await runReefScenario(memory, { log: (line) => transcript.push(line) });
 * result.remembered.at(-1)?.version; // 3 on a fresh session
 */
export async function runReefScenario(
  tools: MemoryTools,
  options: ReefScenarioOptions = {},
): Promise<ReefScenarioResult> {
  const log = options.log ?? (() => {});

  log('● load');
  const load = await tools.load();
  log(
    `  session ${load.session.id} at version ${load.session.version}, reviewed knowledge at revision ${load.session.pinnedRevision}, ` +
      `forgets at ${load.session.expiresAt}`,
  );
  log(`  preload: ${load.preload.rows.length} row(s)${load.preload.truncated ? ' (truncated)' : ''}`);
  load.preload.rows.forEach((r) => log(rowLine(r)));

  const existing = new Set(load.preload.rows.filter((r) => r.source === 'note').map((r) => r.name));
  const firstReviewed = load.preload.rows.find((r) => r.source === 'reviewed');
  const opFor = (name: string) => (existing.has(name) ? 'replace' : 'add');

  async function remember(changes: Change[]): Promise<RememberResult> {
    changes.forEach((c) => log(`● remember ${changeLine(c)}`));
    const result = await tools.execute('remember', { changes });
    const applied = result.applied.map((a) => `${a.op} ${a.name} ${short(a.digest)}`).join(', ');
    log(`  → version ${result.version}${result.replayed ? ' (replayed)' : ''}: ${applied}`);
    return result;
  }

  const figureLinks: Link[] = [{ rel: 'depends_on', to: REEF_NOTES.lead }];
  // A link may point at reviewed knowledge in view too (SPEC §5); the demo library has some.
  if (firstReviewed) figureLinks.push({ rel: 'depends_on', to: firstReviewed.name });

  const remembered = [
    await remember([{ op: opFor(REEF_NOTES.lead), name: REEF_NOTES.lead, text: 'methods section missing' }]),
    await remember([
      { op: opFor(REEF_NOTES.ruledOut), name: REEF_NOTES.ruledOut, text: 'dataset ends 2014' },
    ]),
    await remember([
      {
        op: opFor(REEF_NOTES.todo),
        name: REEF_NOTES.todo,
        text: 'check figure 3 of the 2016 survey against the second paper',
        links: figureLinks,
      },
    ]),
  ];

  log('● query current_notes');
  const notes = await tools.execute('query', { question: 'current_notes' });
  log(
    `  → answer ${notes.answerId} at version ${notes.version}, revision ${notes.pinnedRevision}, ${notes.rows.length} row(s)`,
  );
  notes.rows.forEach((r) => log(rowLine(r)));

  log('● explain row 0');
  const explained = await tools.execute('explain', { answerId: notes.answerId, row: 0 });
  log(`  → ${explained.source} ${explained.name}: ${explained.reason}`);
  if (explained.path.length > 0) log(`    path: ${explained.path.join(' → ')}`);
  log(`    as of version ${explained.basis.version}, revision ${explained.basis.pinnedRevision}`);

  const leadRow = notes.rows.find((r) => r.name === REEF_NOTES.lead && r.source === 'note');
  log(`● read ${REEF_NOTES.lead}${leadRow?.digest ? ` (digest ${short(leadRow.digest)})` : ''}`);
  const read = await tools.execute('read', {
    name: REEF_NOTES.lead,
    source: 'note',
    ...(leadRow?.digest ? { digest: leadRow.digest } : {}),
  });
  log(`  → ${read.source} ${read.name} ${short(read.digest)} by ${read.author}, updated ${read.updatedAt}`);
  log(`    ${quote(read.text)}`);

  const replaced = await remember([
    {
      op: 'replace',
      name: REEF_NOTES.todo,
      text: 'figure 3 checked against the second paper: the recovery curves agree after 2010',
      links: figureLinks,
    },
  ]);

  log('● recall "reef survey methods"');
  const recalled = await tools.execute('recall', { text: 'reef survey methods' });
  if (recalled.mode === 'live') {
    log(`  → live, ${recalled.rows.length} row(s)`);
    recalled.rows.forEach((r) =>
      log(`    ${r.name.padEnd(32)} ${short(r.digest)}  score ${r.score.toFixed(3)}`),
    );
  } else {
    log(`  → ${recalled.mode}: no rows reach the agent`);
  }

  return { load, remembered, notes, explained, read, replaced, recalled };
}
