/**
 * The run transcript: the messages, and a memory card for every remember or recall the agent
 * made. Remember cards are derived from the session's log each time the transcript is read, so
 * after Forget now (or the purge) their names are gone and one "forgotten" card stands in.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import { insertMessage, listMessages, listRecallEvents } from '../data/runs.ts';
import { requireOwnedRun } from '../access.ts';
import { acceptRun } from '../accept-run.ts';
import { invalidInput, notFound } from '../errors.ts';
import { ownerProcedure } from '../trpc.ts';

export type TranscriptItem =
  | { type: 'message'; role: 'you' | 'agent'; text: string; at: string }
  | {
      type: 'memory';
      action: 'remembered' | 'recalled';
      /** Notes the call touched: added, replaced and removed alike (SPEC §6). */
      count: number;
      /**
       * How many of `count` were removals, beyond the SPEC shape: a call that only removed notes
       * must not read "Remembered" in the web. Always 0 for a recall or a forgotten card.
       */
      removed: number;
      names: string[];
      sessionId: string;
      at: string;
      forgotten: boolean;
    };

export const chatRouter = {
  /**
   * The owner asks in a document (SPEC §7): without `runId`, a new chat run (the same rules as
   * runs.accept) whose first turn is `text`; with the `runId` of a live chat run, another turn.
   * The hosted runtime answers; no token comes back.
   */
  ask: ownerProcedure.input(ownerInputs['chat.ask']).mutation(async ({ ctx, input }) => {
    const { deps } = ctx;
    let run;
    if (input.runId === undefined) {
      run = await acceptRun(deps, ctx.user.id, input.documentId, 'chat');
    } else {
      run = await requireOwnedRun(deps, ctx.user.id, input.runId);
      if (run.documentId !== input.documentId) throw notFound('The run');
      if (run.mode !== 'chat')
        throw invalidInput(
          'runId: a staged run takes no questions; leave runId out to ask in a new chat run.',
        );
      if (run.status !== 'live')
        throw invalidInput('runId: this run has finished; leave runId out to ask in a new chat run.');
    }
    await insertMessage(deps.app, run.id, { role: 'you', text: input.text, at: deps.now().toISOString() });
    return { runId: run.id, sessionId: run.sessionId };
  }),

  transcript: ownerProcedure
    .input(ownerInputs['chat.transcript'])
    .query(async ({ ctx, input }): Promise<TranscriptItem[]> => {
      const { deps } = ctx;
      const run = await requireOwnedRun(deps, ctx.user.id, input.runId);
      const items: TranscriptItem[] = (await listMessages(deps.app, run.id)).map((m) => ({
        type: 'message',
        ...m,
      }));
      if (run.sessionId !== null) {
        const s = await deps.store.getSession(run.sessionId);
        if (s && (s.state === 'forgotten' || s.state === 'purged')) {
          items.push({
            type: 'memory',
            action: 'remembered',
            count: 0,
            removed: 0,
            names: [],
            sessionId: s.id,
            at: s.forgottenAt ?? s.purgedAt ?? s.expiresAt,
            forgotten: true,
          });
        } else if (s) {
          for (const e of await deps.store.log(s.id)) {
            items.push({
              type: 'memory',
              action: 'remembered',
              count: e.applied.length,
              removed: e.applied.filter((a) => a.op === 'remove').length,
              names: e.applied.map((a) => a.name),
              sessionId: s.id,
              at: e.at,
              forgotten: false,
            });
          }
          // Recall events hold counts only (no names in the application database, see migrations).
          for (const r of await listRecallEvents(deps.app, run.id)) {
            items.push({
              type: 'memory',
              action: 'recalled',
              count: r.count,
              removed: 0,
              names: [],
              sessionId: s.id,
              at: r.at,
              forgotten: false,
            });
          }
        }
      }
      // Stable sort: equal times keep messages before the cards they led to.
      return items
        .map((item, i) => ({ item, i }))
        .sort((a, b) => a.item.at.localeCompare(b.item.at) || a.i - b.i)
        .map((x) => x.item);
    }),

  /** The owner's message in the run transcript. */
  say: ownerProcedure.input(ownerInputs['chat.say']).mutation(async ({ ctx, input }) => {
    const run = await requireOwnedRun(ctx.deps, ctx.user.id, input.runId);
    const at = ctx.deps.now().toISOString();
    await insertMessage(ctx.deps.app, run.id, { role: 'you', text: input.text, at });
    return { at };
  }),
} satisfies TRPCRouterRecord;
