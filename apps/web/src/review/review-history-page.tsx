import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { Breadcrumb } from '../shared/breadcrumb.tsx';
import { isNotFound } from '../shared/errors.ts';
import { NotFoundPage } from '../shared/not-found-page.tsx';
import { documentPath, memoryPanelPath } from '../shared/paths.ts';
import { ErrorState, SkeletonRows } from '../shared/states.tsx';
import { formatWhen } from '../shared/time.ts';
import { useTitle } from '../shared/use-title.ts';
import { trpc, type RouterOutputs } from '../trpc.ts';
import { ExportReviewedKnowledge } from './export-reviewed-knowledge.tsx';

type Decision = RouterOutputs['review']['history']['decisions'][number];

/**
 * Every review decision on a document, newest first (`/documents/:id/reviews`): accepted ones
 * with the revision they made, rejected ones too, each with its reviewer, comment, time, the
 * profile release that validated it, the fields and links as decided, and the cited passage.
 * The owner can export the reviewed knowledge from here; anyone else sees the not-found page.
 */
export default function ReviewHistoryPage() {
  const { id: documentId = '' } = useParams();
  const history = useQuery(trpc.review.history.queryOptions({ documentId }));
  const doc = useQuery({ ...trpc.documents.get.queryOptions({ documentId }), enabled: history.isSuccess });
  useTitle('Review history', doc.data?.title);

  if (history.isError && isNotFound(history.error)) return <NotFoundPage />;

  return (
    <>
      <Breadcrumb
        trail={[
          { label: 'Library', to: '/' },
          { label: doc.data?.title ?? 'Document', to: documentPath(documentId) },
        ]}
        current="Review history"
      />
      <div className="page-head">
        <div>
          <h1>Review history</h1>
          {history.data && (
            <p className="muted">
              {history.data.latestRevision === 0
                ? 'No revision yet'
                : `Newest revision: ${history.data.latestRevision}. New runs see it; running sessions keep the revision they started with.`}
            </p>
          )}
        </div>
        {history.data && history.data.latestRevision > 0 && (
          <ExportReviewedKnowledge documentId={documentId} />
        )}
      </div>
      {history.isPending ? (
        <div className="box" aria-busy="true">
          <span className="visually-hidden">Loading the review history…</span>
          <SkeletonRows rows={3} />
        </div>
      ) : history.isError ? (
        <ErrorState
          error={history.error}
          onRetry={() => void history.refetch()}
          title="Could not load the review history"
        />
      ) : history.data.decisions.length === 0 ? (
        <div className="state-block box">
          <strong>No decisions yet</strong>
          <p>
            Propose a working note for review from the{' '}
            <Link to={memoryPanelPath(documentId)}>Memory panel</Link>.
          </p>
        </div>
      ) : (
        <ol className="decisions" aria-label="Decisions, newest first">
          {history.data.decisions.map((d) => (
            <DecisionItem key={d.id} d={d} />
          ))}
        </ol>
      )}
    </>
  );
}

function DecisionItem({ d }: { d: Decision }) {
  const accepted = d.decision === 'accept';
  return (
    <li className="box decision">
      <article aria-label={`${accepted ? 'Accepted' : 'Rejected'}: ${d.name}`}>
        <p className="decision-head">
          <span className={`badge ${accepted ? 'accept' : 'reject'}`}>
            {accepted ? 'Accepted' : 'Rejected'}
          </span>
          <span className="mono">{d.name}</span>
          <span className="muted small">
            {accepted && d.revision !== null ? `revision ${d.revision}` : 'no revision'} · by{' '}
            {d.reviewerName ?? d.reviewerId} ·{' '}
            <time dateTime={d.at} title={d.at}>
              {formatWhen(d.at)}
            </time>
          </span>
        </p>
        <dl>
          <dt>Comment</dt>
          <dd>{d.comment || <span className="faint">No comment</span>}</dd>
          <dt>Profile</dt>
          <dd>
            {d.profile === null ? (
              <span className="faint">None recorded</span>
            ) : (
              <>
                {d.profile.name} {d.profile.version}{' '}
                {d.profile.digest === null ? (
                  <span className="faint small">(pack digest not recorded)</span>
                ) : (
                  <span className="mono small" title={d.profile.digest}>
                    pack {d.profile.digest.slice(0, 4)}...
                  </span>
                )}
              </>
            )}
          </dd>
          <dt>Fields</dt>
          <dd>
            {d.fields === null ? (
              <span className="faint">None</span>
            ) : (
              <ul className="links" aria-label={`Fields of ${d.name}`}>
                {Object.entries(d.fields).map(([name, value]) => (
                  <li key={name}>
                    <span className="rel">{name}</span>:{' '}
                    <span className="mono">{typeof value === 'string' ? value : JSON.stringify(value)}</span>
                  </li>
                ))}
              </ul>
            )}
          </dd>
          <dt>Links</dt>
          <dd>
            {d.links.length === 0 ? (
              <span className="faint">None</span>
            ) : (
              <ul className="links">
                {d.links.map((link, i) => (
                  <li key={i}>
                    <span className="rel">{link.rel.replace('_', ' ')}</span> →{' '}
                    <span className="mono">{link.to}</span>
                  </li>
                ))}
              </ul>
            )}
          </dd>
          <dt>Cited passage</dt>
          <dd>
            <figure className="cited-passage">
              <blockquote>{d.passage}</blockquote>
              <figcaption className="small muted">
                from{' '}
                {d.source.title === null ? (
                  <span>a document no longer in your library</span>
                ) : (
                  <Link to={documentPath(d.source.documentId)}>{d.source.title}</Link>
                )}
              </figcaption>
            </figure>
          </dd>
          <dt>Digest</dt>
          <dd className="mono small" title={d.digest}>
            {d.digest.slice(0, 4)}...
          </dd>
        </dl>
      </article>
    </li>
  );
}
