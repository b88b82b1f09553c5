import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { runLabel } from '../document/chat.ts';
import { recallEntryWords, recallsHeading } from '../document/memory-card.ts';
import { useRunTranscript } from '../document/use-run-transcript.ts';
import { sessionWord, type SessionWord } from '../library/row-words.ts';
import { fieldsInWords, profileFieldsOf, titlesOf } from '../review/fields-in-words.ts';
import { useFieldSpecs } from '../review/fields-list.tsx';
import { ReviewDialog } from '../review/review-dialog.tsx';
import { Breadcrumb } from '../shared/breadcrumb.tsx';
import { errorMessage, isNotFound } from '../shared/errors.ts';
import { NotFoundPage } from '../shared/not-found-page.tsx';
import { documentPath } from '../shared/paths.ts';
import { ErrorState, SkeletonRows } from '../shared/states.tsx';
import { formatWhen } from '../shared/time.ts';
import { useNow } from '../shared/use-now.ts';
import { useTitle } from '../shared/use-title.ts';
import { trpc, type RouterOutputs } from '../trpc.ts';
import { ForgetCountdown } from './countdown.tsx';
import { ForgetDialog } from './forget-dialog.tsx';
import { MemoryRows } from './memory-rows.tsx';
import {
  emptyNotesWords,
  emptyReviewedWords,
  noSessionWords,
  plural,
  revisionWords,
  startedWords,
  stateWords,
} from './panel-words.ts';

type Panel = RouterOutputs['memory']['panel'];
type Session = NonNullable<Panel['session']>;
type Run = RouterOutputs['runs']['list'][number];

const RULE = 'Remembered notes are not evidence: they need review before they can support a claim.';

/** The owner's Memory panel for one session of a document (`?session=<id>`, else the newest). */
export default function MemoryPage() {
  const { id: documentId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const sessionId = params.get('session') ?? undefined;

  const panel = useQuery(trpc.memory.panel.queryOptions({ documentId, ...(sessionId ? { sessionId } : {}) }));
  // For the breadcrumb and the session labels ("Chat run"); the panel decides what is visible.
  const doc = useQuery({ ...trpc.documents.get.queryOptions({ documentId }), enabled: panel.isSuccess });
  const runs = useQuery({ ...trpc.runs.list.queryOptions({ documentId }), enabled: panel.isSuccess });
  // A note the agent writes while the owner watches shows up without a reload: the session's live
  // run streams its transcript (chat.events), and each new card reads the panel again.
  const liveRun = runs.data?.find(
    (r) => r.status === 'live' && r.sessionId !== null && r.sessionId === panel.data?.session?.id,
  );
  const { liveNote } = useRunTranscript(liveRun?.id ?? null, {
    follow: liveRun !== undefined,
    onItem: (item) => {
      if (item.type === 'memory') void panel.refetch();
    },
  });
  // Reviewed rows carry the reviewer's id; a name reads better.
  const me = useQuery(trpc.auth.me.queryOptions());
  const demoUsers = useQuery({
    ...trpc.auth.demoUsers.queryOptions(),
    enabled: panel.isSuccess && panel.data.reviewedInView.some((r) => r.reviewerName === null),
    staleTime: Infinity,
  });
  const reviewerName = (rec: Panel['reviewedInView'][number]): string =>
    rec.reviewerName ??
    (me.data?.id === rec.reviewerId
      ? me.data.name
      : demoUsers.data?.find((u) => u.id === rec.reviewerId)?.name) ??
    rec.reviewerId;
  // Reviewed rows' fields in words: labels and codecs from their packs, references by title.
  const inView = panel.data?.reviewedInView ?? [];
  const specsOf = useFieldSpecs(inView.flatMap((r) => profileNameOf(r.data)));
  const titleOf = titlesOf(
    inView.map((r) => ({ name: r.name, text: r.text, fields: profileFieldsOf(r.data) })),
  );
  const fieldsOf = (rec: Panel['reviewedInView'][number]) => {
    const fields = profileFieldsOf(rec.data);
    return fields === null
      ? []
      : fieldsInWords(rec.kind, fields, specsOf(profileNameOf(rec.data)[0] ?? null, rec.kind), titleOf);
  };
  const [proposing, setProposing] = useState<Panel['workingNotes'][number] | null>(null);

  // A forget that just succeeded shows at once, before the refetch confirms it.
  const [forgotten, setForgotten] = useState<{ sessionId: string; at: string } | null>(null);
  const stateLine = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (forgotten) stateLine.current?.focus();
  }, [forgotten]);

  useTitle('Memory', doc.data?.title);
  // For the header's "14:02 today" and a session's passing its time; the countdown ticks itself.
  const now = useNow(30_000);

  if (panel.isError && isNotFound(panel.error)) return <NotFoundPage />;

  const title = doc.data?.title;
  const breadcrumb = (
    <Breadcrumb
      trail={[
        { label: 'Library', to: '/' },
        { label: title ?? 'Document', to: documentPath(documentId) },
      ]}
      current="Memory"
    />
  );

  if (panel.isPending) {
    return (
      <>
        {breadcrumb}
        <div className="panel-head">
          <h1>Memory</h1>
        </div>
        <p className="rule">{RULE}</p>
        <LoadingSection title="Working notes" />
        <LoadingSection title="Reviewed knowledge in view" />
      </>
    );
  }
  if (panel.isLoadingError) {
    return (
      <>
        {breadcrumb}
        <div className="panel-head">
          <h1>Memory</h1>
        </div>
        <ErrorState
          error={panel.error}
          onRetry={() => void panel.refetch()}
          title="Could not load the Memory panel"
        />
      </>
    );
  }

  const data = panel.data;
  const session = data.session;
  const isForgottenHere = !!session && forgotten?.sessionId === session.id;
  const state: SessionWord | null = session
    ? isForgottenHere
      ? 'forgotten'
      : sessionWord(session, now)
    : null;
  const closed = state === 'forgotten' || state === 'purged';
  const notes = closed ? [] : data.workingNotes;
  const reviewed = closed ? [] : data.reviewedInView;
  const recalls = closed ? [] : data.recentRecalls;
  const revision = session ? revisionWords(session.pinnedRevision, data.latestRevision) : null;
  const runsBySession = new Map<string, Run>();
  for (const run of runs.data ?? []) if (run.sessionId) runsBySession.set(run.sessionId, run);

  return (
    <>
      {breadcrumb}
      <div className="panel-head">
        <h1>Memory</h1>
        {session && (
          <SessionPicker
            sessions={data.sessions}
            current={session.id}
            runsBySession={runsBySession}
            onPick={(id) => setParams({ session: id })}
          />
        )}
        {session && state && (
          <>
            <p className="session-meta" ref={stateLine} tabIndex={-1}>
              <span title={session.startedAt}>{startedWords(session, now)}</span>
              <span className="sep" aria-hidden="true">
                ·
              </span>
              <StateLine
                session={session}
                state={state}
                now={now}
                forgottenAt={isForgottenHere ? forgotten.at : session.forgottenAt}
              />
            </p>
            {(state === 'open' || state === 'expired') && (
              <div className="panel-actions">
                <ForgetDialog
                  sessionId={session.id}
                  onForgotten={(at) => setForgotten({ sessionId: session.id, at })}
                />
              </div>
            )}
          </>
        )}
      </div>
      {panel.isRefetchError && (
        <p className="notice error" role="alert" style={{ marginBottom: '1rem' }}>
          Could not refresh the panel: {errorMessage(panel.error)}{' '}
          <button type="button" className="link-button" onClick={() => void panel.refetch()}>
            Retry
          </button>
        </p>
      )}
      <p className="rule">{RULE}</p>
      {liveNote !== null && (
        <p className="notice small" role="status" style={{ marginBottom: '1rem' }}>
          {liveNote}
        </p>
      )}

      {!session ? (
        <NoSession runs={runs.data} />
      ) : (
        <>
          <section
            className="mem-section"
            aria-labelledby="working-notes-title"
            aria-describedby="working-notes-desc"
          >
            <div className="mem-section-head">
              <h2 id="working-notes-title">Working notes</h2>
              <p className="desc" id="working-notes-desc">
                Private notes the agent wrote for itself in this session
              </p>
              <span className="count">{plural(notes.length, 'note')}</span>
            </div>
            {notes.length > 0 ? (
              <MemoryRows kind="note" rows={notes} onPropose={setProposing} />
            ) : (
              <p className="empty-list">{emptyNotesWords(state)}</p>
            )}
          </section>

          <section className="mem-section" aria-labelledby="reviewed-title" aria-describedby="reviewed-desc">
            <div className="mem-section-head">
              <h2 id="reviewed-title">Reviewed knowledge in view</h2>
              <p className="desc" id="reviewed-desc">
                Reviewed knowledge the agent can read here but not change
              </p>
              {!closed && revision && <span className="pin">{revision.asOf}</span>}
            </div>
            {!closed && revision?.newer && <p className="revision-newer small">{revision.newer}</p>}
            {reviewed.length > 0 ? (
              <MemoryRows kind="reviewed" rows={reviewed} reviewerName={reviewerName} fieldsOf={fieldsOf} />
            ) : (
              <p className="empty-list">{emptyReviewedWords(state)}</p>
            )}
          </section>
          {recalls.length > 0 && <RecentRecalls recalls={recalls} now={now} />}
          {/* Always there, closed: it reads what it needs before the first click (≤ 300 ms to open). */}
          <ReviewDialog
            documentId={documentId}
            session={session}
            note={proposing}
            onClose={() => setProposing(null)}
          />
        </>
      )}
    </>
  );
}

type RecallEvent = RouterOutputs['memory']['panel']['recentRecalls'][number];

/** The most names one recall lists; the rest are counted. */
const RECALL_NAMES = 5;

/**
 * What recall found in this session, newest first: names and similarity only (the agent's query is
 * never kept). Each recall's count is the one its transcript card gives ("found 2 similar notes").
 */
function RecentRecalls({ recalls, now }: { recalls: RecallEvent[]; now: number }) {
  const modes = recalls.map((r) => r.mode);
  return (
    <section className="mem-section" aria-labelledby="recalls-title" aria-describedby="recalls-desc">
      <div className="mem-section-head">
        <h2 id="recalls-title">{recallsHeading(modes)}</h2>
        <p className="desc" id="recalls-desc">
          Notes like what the agent looked for; its query is not kept
        </p>
        <span className="count">{recalls.length === 1 ? '1 search' : `${recalls.length} searches`}</span>
      </div>
      <ol className="recall-list">
        {recalls.map((r, i) => (
          <li key={`${r.at}-${i}`} className="small">
            <time dateTime={r.at} title={r.at} className="muted">
              {formatWhen(r.at, now)}
            </time>{' '}
            · {recallEntryWords(r, modes)}
            {r.results.length > 0 && (
              <ul aria-label="Notes found">
                {r.results.slice(0, RECALL_NAMES).map((h) => (
                  <li key={h.name}>
                    <code>{h.name}</code>{' '}
                    <span className="muted" title="How similar the note is, from 0 to 1">
                      {h.score.toFixed(2)}
                    </span>
                  </li>
                ))}
                {r.found > RECALL_NAMES && <li className="muted">and {r.found - RECALL_NAMES} more</li>}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function LoadingSection({ title }: { title: string }) {
  return (
    <section className="mem-section" aria-label={title} aria-busy="true">
      <div className="mem-section-head">
        <h2>{title}</h2>
        <span className="desc">Loading…</span>
      </div>
      <SkeletonRows rows={3} />
    </section>
  );
}

/** The session's state in its one word; an open one counts down every second. */
function StateLine({
  session,
  state,
  now,
  forgottenAt,
}: {
  session: Session;
  state: SessionWord;
  now: number;
  forgottenAt: string | null;
}) {
  if (state === 'open') return <ForgetCountdown forgetsAt={session.forgetsAt} />;
  const at = state === 'forgotten' ? forgottenAt : state === 'purged' ? session.purgedAt : session.forgetsAt;
  return (
    <span className={state === 'opening' ? 'state-line' : 'state-line closed'} title={at ?? undefined}>
      {stateWords(state, session, now, forgottenAt)}
    </span>
  );
}

function SessionPicker({
  sessions,
  current,
  runsBySession,
  onPick,
}: {
  sessions: Panel['sessions'];
  current: string;
  runsBySession: Map<string, Run>;
  onPick: (id: string) => void;
}) {
  const id = useId();
  const now = useNow(5000);
  return (
    <div className="session-picker">
      <label htmlFor={id}>Session</label>
      <select id={id} value={current} onChange={(e) => onPick(e.target.value)}>
        {sessions.map((s) => (
          <option key={s.id} value={s.id}>
            {sessionLabel(s, runsBySession.get(s.id), now)}
          </option>
        ))}
      </select>
    </div>
  );
}

/** "Chat run · 2 h ago · open": the words the document page's runs use. */
function sessionLabel(session: Session, run: Run | undefined, now: number): string {
  return runLabel(run?.mode, session.startedAt, sessionWord(session, now), now);
}

/** No session to show: either no run yet, or only runs without working memory (staged). */
function NoSession({ runs }: { runs: Run[] | undefined }) {
  const { title, text } = noSessionWords(runs);
  return (
    <div className="state-block box">
      <strong>{title}</strong>
      <p>{text}</p>
    </div>
  );
}

/** The pack a reviewed record's data names (`{ profile, version, fields }`), as a list of none or one. */
function profileNameOf(data: unknown): string[] {
  return typeof data === 'object' && data !== null && 'profile' in data && typeof data.profile === 'string'
    ? [data.profile]
    : [];
}
