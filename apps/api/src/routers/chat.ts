/**
 * The run transcript (SPEC §7, §7c): the owner's questions and messages (runs/chat.ts), and the
 * transcript — the messages, and a card for every remember, recall, search and read the agent
 * made — read whole (`chat.transcript`) or live (`chat.events`, runs/live-transcript.ts).
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { chatEventsInputSchema, ownerInputs } from '@sponge/contract';
import { ask, say } from '../runs/chat.ts';
import { openTranscriptEvents } from '../runs/live-transcript.ts';
import { transcriptOf } from '../runs/transcript.ts';
import { ownerProcedure } from '../trpc/procedures.ts';

export const chatRouter = {
  /**
   * The owner asks in a document (SPEC §7): without `runId`, a new chat run (the same rules as
   * runs.accept) whose first turn is `text`; with the `runId` of a live chat run, another turn.
   * The hosted runtime answers; no token comes back.
   */
  ask: ownerProcedure
    .input(ownerInputs['chat.ask'])
    .mutation(({ ctx, input }) => ask(ctx.deps, ctx.user.id, input)),

  transcript: ownerProcedure
    .input(ownerInputs['chat.transcript'])
    .query(({ ctx, input }) => transcriptOf(ctx.deps, ctx.user.id, input.runId)),

  /**
   * The transcript, live (SPEC §7c): the items so far, then each item as it is committed, every
   * one `tracked` with the stream's position after it, so a reconnect with `lastEventId` (or the
   * `Last-Event-ID` header) resumes with nothing lost or sent twice. The owner's, as
   * `chat.transcript`: checked when it opens and again at every read; once the run's document is
   * removed or changes hands, the stream ends.
   */
  events: ownerProcedure
    .input(chatEventsInputSchema)
    .subscription(({ ctx, input, signal }) => openTranscriptEvents(ctx.deps, ctx.user.id, input, signal)),

  /** The owner's message in the run transcript. */
  say: ownerProcedure
    .input(ownerInputs['chat.say'])
    .mutation(({ ctx, input }) => say(ctx.deps, ctx.user.id, input)),
} satisfies TRPCRouterRecord;
