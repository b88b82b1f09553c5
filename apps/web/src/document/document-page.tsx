import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useLocation, useParams, useSearchParams } from 'react-router';
import { CiteMenu } from '../library/cite-menu.tsx';
import { IndexState } from '../library/index-state.tsx';
import { inProgress, pollMs } from '../library/row-words.ts';
import { Breadcrumb } from '../shared/breadcrumb.tsx';
import { isNotFound } from '../shared/errors.ts';
import { NotFoundPage } from '../shared/not-found-page.tsx';
import { memoryPanelPath } from '../shared/paths.ts';
import { ErrorState, PageLoading, SkeletonRows } from '../shared/states.tsx';
import { formatWhen } from '../shared/time.ts';
import { useNow } from '../shared/use-now.ts';
import { useTitle } from '../shared/use-title.ts';
import { trpc, type RouterOutputs } from '../trpc.ts';
import { AskForm } from './ask-form.tsx';
import {
  answerState,
  closedChatWords,
  runLabel,
  runMemoryWord,
  takesQuestions,
  transcriptRefetchMs,
  waitingSince,
} from './chat.ts';
import { CiteSelection } from './cite-selection.tsx';
import { DocumentActions } from './document-actions.tsx';
import { EditDetails, PaperFacts } from './paper-details.tsx';
import { Citations, LibraryCardView, MemoryCardView } from './transcript-items.tsx';
import { citedDocumentIds } from './transcript-views.ts';
import { useQuotedPassage } from './use-quoted-passage.ts';
import { useRunTranscript } from './use-run-transcript.ts';
import { WindowedText } from './windowed-text.tsx';

type Doc = RouterOutputs['documents']['get'];
type Run = RouterOutputs['runs']['list'][number];

export default function DocumentPage() {
  const { id: documentId = '' } = useParams();
  const doc = useQuery({
    ...trpc.documents.get.queryOptions({ documentId }),
    // The route asked for it while this page's code loaded (app.tsx): not again at once, which
    // for a long text would send its 2 MB a second time before the page can show.
    staleTime: 10_000,
    // A new document is extracted and indexed in the background: follow it until it is searchable.
    // Each answer carries the whole text: a long one is asked for less often.
    refetchInterval: (query) =>
      inProgress(query.state.data?.index) ? pollMs(query.state.data?.characters ?? 0, 500_000) : false,
  });
  // The run the owner is looking at (`?run=`): its question box asks follow-ups, and coming back
  // from the Memory panel finds it again.
  const [params, setParams] = useSearchParams();
  useTitle(doc.data?.title);

  if (doc.isPending) return <PageLoading />;
  // Also on a refetch: the document may have been removed or unshared meanwhile.
  if (doc.isError && isNotFound(doc.error)) return <NotFoundPage />;
  if (doc.isLoadingError) {
    return (
      <ErrorState error={doc.error} onRetry={() => void doc.refetch()} title="Could not load this document" />
    );
  }
  const isOwner = doc.data.access === 'owner';
  return (
    <>
      <Breadcrumb trail={[{ label: 'Library', to: '/' }]} current={doc.data.title} />
      <div className="page-head">
        <div className="title-line">
          <h1>{doc.data.title}</h1>
          {isOwner && <IndexState documentId={doc.data.id} index={doc.data.index} />}
        </div>
        <div className="head-actions">
          {/* Anyone who reads it may cite it; editing it and the menu's actions are the owner's. */}
          <CiteMenu documentIds={[doc.data.id]} />
          {isOwner && <EditDetails doc={doc.data} />}
          {isOwner && <DocumentActions doc={doc.data} />}
        </div>
      </div>
      <div className="doc-layout">
        <DocumentBody doc={doc.data} />
        {/* Runs are the owner's alone: for anyone else the API answers NOT_FOUND, and the region is absent. */}
        {isOwner && (
          <Runs
            documentId={documentId}
            extracting={doc.data.index?.state === 'extracting'}
            runsClosedSince={doc.data.runsClosedSince}
            currentRunId={params.get('run')}
            onSelectRun={(runId) => setParams(runId ? { run: runId } : {}, { replace: true })}
          />
        )}
      </div>
    </>
  );
}

/**
 * Title page facts, then the text with its page markers; a selected passage can be cited. While an
 * upload's text is still being extracted there is none yet: that is said instead (its progress is
 * beside the title).
 */
function DocumentBody({ doc }: { doc: Doc }) {
  const textRef = useRef<HTMLDivElement>(null);
  const { hash, key } = useLocation();
  // A citation chip or a search hit links to its quote (?page=4&quote=…): marked, and scrolled to.
  const quoted = useQuotedPassage(doc);
  // A card of what the agent read links to its page (#page-3).
  const hashPage = /^#page-(\d+)$/u.exec(hash)?.[1];
  if (doc.index?.state === 'extracting') {
    return (
      <article className="box doc-text state-block" aria-label="Document">
        <strong>The text is being extracted from the file</strong>
        <p>It appears here once the file has been read; this page follows it.</p>
      </article>
    );
  }
  return (
    <article className="box doc-text" aria-label="Document">
      <PaperFacts doc={doc} />
      {doc.abstract && (
        <section className="abstract" aria-label="Abstract">
          <h2 className="visually-hidden">Abstract</h2>
          <p>{doc.abstract}</p>
        </section>
      )}
      {quoted.notFound && (
        <p className="notice warn" role="status">
          The quoted passage was not found on this page{quoted.page === null ? '' : ` (p. ${quoted.page})`}.
        </p>
      )}
      <CiteSelection documentId={doc.id} textRef={textRef} />
      <WindowedText
        bodyRef={textRef}
        text={doc.text}
        source={doc.source}
        pageStarts={doc.pageStarts}
        ocrPages={doc.ocrPages}
        highlight={quoted.span}
        reveal={quoted.reveal ?? (hashPage === undefined ? null : Number(hashPage))}
        // Again for every visit, as a click on the same chip a second time should scroll again.
        visit={key}
      />
    </article>
  );
}

function Runs({
  documentId,
  extracting,
  runsClosedSince,
  currentRunId,
  onSelectRun,
}: {
  documentId: string;
  /** The text is still being extracted: nothing to ask about yet (chat.ask would refuse). */
  extracting: boolean;
  runsClosedSince: string | null;
  currentRunId: string | null;
  onSelectRun: (runId: string | null) => void;
}) {
  const runs = useQuery(trpc.runs.list.queryOptions({ documentId }));
  // A run's memory expires by the clock, and then takes no question.
  const now = useNow(30_000);
  // A new run's question box moves from under the list into the run: it takes the focus along.
  const [startedRunId, setStartedRunId] = useState<string | null>(null);
  if (runs.isError && isNotFound(runs.error)) return null;
  const current = runs.data?.find((r) => r.id === currentRunId);
  const followingUp = current !== undefined && takesQuestions(current, now);
  return (
    <section className="box runs" aria-label="Runs">
      <h2>Runs</h2>
      {runs.isPending ? (
        <div aria-busy="true">
          <span className="visually-hidden">Loading runs…</span>
          <SkeletonRows rows={2} />
        </div>
      ) : runs.isLoadingError ? (
        <ErrorState error={runs.error} onRetry={() => void runs.refetch()} title="Could not load the runs" />
      ) : runs.data.length === 0 ? (
        <p className="muted">No runs yet. The agent has not worked on this document.</p>
      ) : (
        runs.data.map((run, i) => (
          <RunItem
            key={run.id}
            run={run}
            documentId={documentId}
            current={run.id === currentRunId}
            followed={i < FOLLOWED_RUNS || run.id === currentRunId}
            now={now}
            onLookAt={() => onSelectRun(run.id)}
          >
            {run.id === currentRunId && runsClosedSince === null && (
              <ClosedChatLine words={closedChatWords(run, now)} />
            )}
            {run.id === currentRunId && takesQuestions(run, now) && (
              <AskForm
                documentId={documentId}
                runId={run.id}
                autoFocus={run.id === startedRunId}
                onAsked={onSelectRun}
                // Once new runs are closed, leaving this run would leave nowhere to ask.
                onNewChat={runsClosedSince === null ? () => onSelectRun(null) : undefined}
              />
            )}
          </RunItem>
        ))
      )}
      {!followingUp &&
        (runsClosedSince !== null ? (
          <p className="notice ask-closed">
            New runs are closed since <time dateTime={runsClosedSince}>{formatWhen(runsClosedSince)}</time>;
            earlier runs stay readable.
          </p>
        ) : extracting ? (
          <p className="notice ask-closed">Questions open once the text has been extracted.</p>
        ) : (
          <AskForm
            documentId={documentId}
            onAsked={(runId) => {
              setStartedRunId(runId);
              onSelectRun(runId);
            }}
          />
        ))}
    </section>
  );
}

/** Why the live chat looked at takes no more questions, when its memory is closed for good. */
function ClosedChatLine({ words }: { words: string | null }) {
  return words === null ? null : <p className="notice small">{words}</p>;
}

/**
 * Live runs whose transcripts stream (SPEC §7c): the newest ones and the one looked at. Each
 * stream holds one of the browser's six connections to the server; older live runs are read
 * again every few seconds instead.
 */
const FOLLOWED_RUNS = 2;

function RunItem({
  run,
  documentId,
  current,
  followed,
  now,
  onLookAt,
  children,
}: {
  run: Run;
  documentId: string;
  current: boolean;
  followed: boolean;
  now: number;
  onLookAt: () => void;
  /** The follow-up question box, when this is the live chat run the owner is looking at. */
  children?: React.ReactNode;
}) {
  const live = run.status === 'live';
  const { transcript, liveNote } = useRunTranscript(run.id, {
    follow: live && followed,
    pollMs: (items) => transcriptRefetchMs(items, live, Date.now()),
  });
  const word = runMemoryWord(run, now);
  const headingId = `run-${run.id}`;
  const since = live ? waitingSince(transcript.data) : null;
  return (
    <article
      className={current ? 'run current' : 'run'}
      aria-labelledby={headingId}
      aria-current={current || undefined}
    >
      <div className="run-head">
        <span className={word === 'open' || word === 'opening' ? `dot ${word}` : 'dot'} aria-hidden="true" />
        <h3 id={headingId} title={run.acceptedAt}>
          {runLabel(run.mode, run.acceptedAt, word, now)}
        </h3>
        {!current && takesQuestions(run, now) && (
          <button
            type="button"
            className="button small-button"
            onClick={onLookAt}
            aria-describedby={headingId}
          >
            Continue this chat
          </button>
        )}
      </div>
      {transcript.isPending ? (
        <div aria-busy="true">
          <span className="visually-hidden">Loading the transcript…</span>
          <SkeletonRows rows={2} />
        </div>
      ) : transcript.isLoadingError ? (
        <ErrorState
          error={transcript.error}
          onRetry={() => void transcript.refetch()}
          title="Could not load the transcript"
        />
      ) : transcript.data.length === 0 ? (
        <p className="muted small">Nothing said yet.</p>
      ) : (
        <ol className="transcript" aria-label="Transcript">
          {transcript.data.map((item, i) => (
            <li key={i}>
              {item.type === 'memory' ? (
                <MemoryCardView
                  card={item}
                  documentId={documentId}
                  closedAs={word === 'purged' ? 'purged' : 'forgotten'}
                />
              ) : item.type === 'library' ? (
                <LibraryCardView card={item} />
              ) : (
                <>
                  <p className="msg">
                    <span className="msg-who">{item.role}:</span> {item.text}
                  </p>
                  {item.citations && item.citations.length > 0 && (
                    <Citations
                      citations={item.citations}
                      memoryHref={run.sessionId === null ? null : memoryPanelPath(documentId, run.sessionId)}
                    />
                  )}
                  {item.citations && citedDocumentIds(item.citations).length > 0 && (
                    <CiteMenu documentIds={citedDocumentIds(item.citations)} label="Copy bibliography" />
                  )}
                </>
              )}
            </li>
          ))}
        </ol>
      )}
      {/* Always in place while the run is live, so screen readers announce what appears in it. */}
      {live && (
        <div className="run-status small" role="status">
          {since !== null && <AnswerWait since={since} />}
          {liveNote !== null && <p className="muted">{liveNote}</p>}
        </div>
      )}
      {children}
    </article>
  );
}

/** "Working…" while the runtime is expected to answer; after a minute, why it may not. */
function AnswerWait({ since }: { since: string }) {
  const now = useNow(1000);
  if (answerState(since, now) === 'working') {
    return (
      <p className="working">
        <span className="spinner" aria-hidden="true" />
        Working…
      </p>
    );
  }
  return (
    <p className="notice warn">
      The agent runtime has not answered yet. Is it running? <code>npm start</code> starts it beside the API.
    </p>
  );
}
