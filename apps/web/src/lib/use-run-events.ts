/**
 * A run's transcript, kept current by `chat.events` (SPEC §7c) instead of polling: the transcript
 * is read once (`chat.transcript`), then the subscription starts right after it
 * (`transcriptEventId`) and folds each new item into the same query data (run-events.ts). A
 * dropped connection resumes from the last event it received (httpSubscriptionLink sends it
 * back as `lastEventId`); a refetch of the transcript meanwhile does no harm, the fold never adds
 * an item twice.
 *
 * @example
 * const transcript = useRunTranscript(run.id, { follow: run.status === 'live' });
 * useRunTranscript(runId, { follow: live, onItem: () => void panel.refetch() });
 */
import { useQuery } from '@tanstack/react-query';
import type { UseQueryResult } from '@tanstack/react-query';
import { skipToken } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { transcriptEventId } from '@sponge/contract';
import type { TranscriptItem } from '@sponge/contract';
import { useState } from 'react';
import { queryClient, trpc } from '../trpc.ts';
import { foldEvent, mergeTranscripts } from './run-events.ts';

export function useRunTranscript(
  /** null: no run (yet); nothing is read. */
  runId: string | null,
  {
    follow,
    pollMs,
    onItem,
  }: {
    /**
     * Whether to follow the run live. A finished run's transcript only changes by Forget now, which
     * refetches; and a page follows a few runs at most (each stream holds one of the browser's six
     * connections to the server).
     */
    follow: boolean;
    /** For a run not followed: how often to read the transcript again, if at all. */
    pollMs?: (items: TranscriptItem[] | undefined) => number | false;
    /** Called with each item the stream adds (the Memory panel reads its notes again). */
    onItem?: (item: TranscriptItem) => void;
  },
): UseQueryResult<TranscriptItem[]> {
  const transcript = useQuery({
    ...trpc.chat.transcript.queryOptions(runId === null ? skipToken : { runId }),
    refetchInterval: (query) => (follow || !pollMs ? false : pollMs(query.state.data)),
    // A refetch that answers after newer events does not take them away (run-events.ts).
    structuralSharing: (before, after) =>
      mergeTranscripts(before as TranscriptItem[] | undefined, after as TranscriptItem[]),
  });
  // Where the stream starts: after the transcript as first read, fixed for the subscription's
  // life (a new input would start a new stream); it resumes by its own last event id after that.
  const [from, setFrom] = useState<{ runId: string; id: string } | null>(null);
  if (runId !== null && transcript.data && from?.runId !== runId)
    setFrom({ runId, id: transcriptEventId(transcript.data) });
  const start = runId !== null && from?.runId === runId ? from.id : null;
  useSubscription(
    trpc.chat.events.subscriptionOptions(
      runId === null || start === null || !follow ? skipToken : { runId, lastEventId: start },
      {
        onData: ({ id, data }) => {
          if (runId === null) return;
          queryClient.setQueryData(trpc.chat.transcript.queryKey({ runId }), (items) =>
            foldEvent(items, id, data),
          );
          onItem?.(data);
        },
      },
    ),
  );
  return transcript as UseQueryResult<TranscriptItem[]>;
}
