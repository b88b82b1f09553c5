/**
 * A run's transcript, kept current by `chat.events` (SPEC §7c) instead of polling: the transcript
 * is read once (`chat.transcript`), then the subscription starts right after it
 * (`transcriptEventId`) and folds each new item into the same query data (run-events.ts). A
 * dropped connection resumes from the last event it received (httpSubscriptionLink sends it
 * back as `lastEventId`); a refetch of the transcript meanwhile does no harm, the fold never adds
 * an item twice.
 *
 * A stream the server refuses (too many open for the run or the account: TOO_MANY_REQUESTS
 * `busy`) or that fails for good is not silence: the transcript is read again every few seconds
 * instead (`onItem` still hears of each new item), the page says so in words (`liveNote`), and
 * the stream is tried again after the server's `retryAfterSeconds`.
 *
 * @example
 * const { transcript, liveNote } = useRunTranscript(run.id, { follow: run.status === 'live' });
 * useRunTranscript(runId, { follow: live, onItem: () => void panel.refetch() });
 */
import { useQuery } from '@tanstack/react-query';
import type { UseQueryResult } from '@tanstack/react-query';
import { skipToken } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { useSubscription } from '@trpc/tanstack-react-query';
import { transcriptEventId } from '@sponge/contract';
import type { TranscriptItem } from '@sponge/contract';
import { useEffect, useRef, useState } from 'react';
import { errorCode } from '../shared/errors.ts';
import { queryClient, trpc } from '../trpc.ts';
import { addedItems, foldEvent, mergeTranscripts } from './run-events.ts';

/** How often a followed run's transcript is read while its stream is refused or broken. */
const FALLBACK_REFRESH_MS = 3000;
/** When to try a refused stream again if the server does not say. */
const DEFAULT_RETRY_MS = 30_000;

const TOO_MANY_STREAMS_NOTE =
  'Too many windows are following your runs live, so this one checks for news every few seconds instead.';
const STREAM_FAILED_NOTE = 'Live updates stopped, so this page checks for news every few seconds instead.';

/** Why a run's stream stopped, and when to try it again. */
interface Stalled {
  runId: string;
  busy: boolean;
  retryMs: number;
}

function stalledBy(runId: string, error: unknown): Stalled {
  const seconds: unknown =
    error instanceof TRPCClientError
      ? (error.data as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds
      : undefined;
  return {
    runId,
    busy: errorCode(error) === 'TOO_MANY_REQUESTS',
    retryMs: typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : DEFAULT_RETRY_MS,
  };
}

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
): {
  transcript: UseQueryResult<TranscriptItem[]>;
  /** A sentence for the page while the run is followed by reading it again instead of live. */
  liveNote: string | null;
} {
  const [stalled, setStalled] = useState<Stalled | null>(null);
  // Followed, but its stream refused or broken: read again instead, until it is tried again.
  const fallback = follow && runId !== null && stalled?.runId === runId;
  const transcript = useQuery({
    ...trpc.chat.transcript.queryOptions(runId === null ? skipToken : { runId }),
    refetchInterval: (query) =>
      follow && !fallback
        ? false
        : pollMs
          ? pollMs(query.state.data)
          : fallback
            ? FALLBACK_REFRESH_MS
            : false,
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
  const subscription = useSubscription(
    trpc.chat.events.subscriptionOptions(
      runId === null || start === null || !follow ? skipToken : { runId, lastEventId: start },
      {
        onData: ({ id, data }) => {
          if (runId === null) return;
          queryClient.setQueryData(trpc.chat.transcript.queryKey({ runId }), (items) =>
            foldEvent(items, id, data),
          );
          // Forget now rewrites the names the replies held: read them again as the server has them.
          if (data.type === 'memory' && data.forgotten)
            void queryClient.invalidateQueries({ queryKey: trpc.chat.transcript.queryKey({ runId }) });
          onItem?.(data);
        },
        onError: (error) => {
          if (runId !== null) setStalled(stalledBy(runId, error));
        },
      },
    ),
  );
  // Refused or broken: tried again when the server said a place may be free.
  const { reset } = subscription;
  useEffect(() => {
    if (stalled === null) return;
    const timer = setTimeout(() => {
      setStalled(null);
      reset();
    }, stalled.retryMs);
    return () => clearTimeout(timer);
  }, [stalled, reset]);
  // Read again instead of live: each item a read brings is told as the stream would have.
  const onItemRef = useRef(onItem);
  useEffect(() => {
    onItemRef.current = onItem;
  });
  const shown = useRef<{ runId: string | null; items: readonly TranscriptItem[] | undefined }>({
    runId,
    items: undefined,
  });
  useEffect(() => {
    const before = shown.current;
    shown.current = { runId, items: transcript.data };
    if (!fallback || before.runId !== runId || !before.items || !transcript.data) return;
    for (const item of addedItems(before.items, transcript.data)) onItemRef.current?.(item);
  }, [runId, fallback, transcript.data]);
  const liveNote = fallback ? (stalled?.busy ? TOO_MANY_STREAMS_NOTE : STREAM_FAILED_NOTE) : null;
  return { transcript: transcript as UseQueryResult<TranscriptItem[]>, liveNote };
}
