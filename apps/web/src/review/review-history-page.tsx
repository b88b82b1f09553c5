import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { Breadcrumb } from '../shared/breadcrumb.tsx';
import { isNotFound } from '../shared/errors.ts';
import { NotFoundPage } from '../shared/not-found-page.tsx';
import { documentPath, memoryPanelPath } from '../shared/paths.ts';
import { NotLoaded } from '../shared/states.tsx';
import { formatWhen } from '../shared/time.ts';
import { useTitle } from '../shared/use-title.ts';
import { trpc, type RouterOutputs } from '../trpc.ts';
import { CitedPassage } from './cited-passage.tsx';
import { ExportReviewedKnowledge } from './export-reviewed-knowledge.tsx';
import {
  fieldsInWords,
  recordTitle,
  referenceWords,
  titlesOf,
  type FieldSpecs,
  type TitleOf,
} from './fields-in-words.ts';
import { FieldsList, useFieldSpecs } from './fields-list.tsx';
import { codeLabel } from './words.ts';

type Decision = RouterOutputs['review']['history']['decisions'][number];

/**
 * Every review decision on a document, newest first (`/documents/:id/reviews`): accepted ones
 * with the revision they made, rejected ones too, each with its reviewer, comment, time, the
 * fields and links as decided — in words, a study or publication by its title (fields-in-words.ts)
 * — the cited passage, and what it was recorded as (profile release, record name, digest).
 * The owner can export the reviewed knowledge from here; anyone else sees the not-found page.
 */
export default function ReviewHistoryPage() {
  const { id: documentId = '' } = useParams();
  const history = useQuery(trpc.review.history.queryOptions({ documentId }));
  const doc = useQuery({ ...trpc.documents.get.queryOptions({ documentId }), enabled: history.isSuccess });
  const decisions = history.data?.decisions ?? [];
  const specsOf = useFieldSpecs(decisions.flatMap((d) => (d.profile ? [d.profile.name] : [])));
  // A reference names the record as accepted (the newest decision first); a rejected one is not a record.
  const titleOf = titlesOf(decisions.filter((d) => d.decision === 'accept'));
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
      {!history.isSuccess ? (
        <NotLoaded query={history} what="the review history" rows={3} className="box" />
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
            <DecisionItem
              key={d.id}
              d={d}
              specs={specsOf(d.profile?.name ?? null, d.kind)}
              titleOf={titleOf}
            />
          ))}
        </ol>
      )}
    </>
  );
}

function DecisionItem({ d, specs, titleOf }: { d: Decision; specs: FieldSpecs | null; titleOf: TitleOf }) {
  const accepted = d.decision === 'accept';
  const kind = codeLabel(d.kind);
  const title = recordTitle(d);
  const fields = d.fields === null ? [] : fieldsInWords(d.kind, d.fields, specs, titleOf);
  return (
    <li className="box decision">
      <article aria-label={`${accepted ? 'Accepted' : 'Rejected'} ${kind.toLowerCase()}: ${title}`}>
        <p className="decision-head">
          <span className={`badge ${accepted ? 'accept' : 'reject'}`}>
            {accepted ? 'Accepted' : 'Rejected'}
          </span>
          <strong>{kind}</strong>
          <span>{title}</span>
          <span className="muted small">
            {accepted && d.revision !== null ? `revision ${d.revision}` : 'no revision'} · by{' '}
            {d.reviewerName ?? d.reviewerId} ·{' '}
            <time dateTime={d.at} title={d.at}>
              {formatWhen(d.at)}
            </time>
          </span>
        </p>
        <dl>
          <dt>Fields</dt>
          <dd>
            {fields.length === 0 ? (
              <span className="faint">None</span>
            ) : (
              <FieldsList lines={fields} label={`Fields of ${title}`} />
            )}
          </dd>
          {d.links.length > 0 && (
            <>
              <dt>Links</dt>
              <dd>
                <ul className="links">
                  {d.links.map((link, i) => (
                    <li key={i}>
                      <span className="rel">{link.rel.replaceAll('_', ' ')}</span>{' '}
                      {linkTarget(link.to, titleOf)}
                    </li>
                  ))}
                </ul>
              </dd>
            </>
          )}
          <dt>Comment</dt>
          <dd>{d.comment || <span className="faint">No comment</span>}</dd>
          <dt>Cited passage</dt>
          <dd>
            <CitedPassage passage={d.passage} source={d.source} />
          </dd>
          <dt>Recorded as</dt>
          <dd className="small">
            <ProfileRelease profile={d.profile} /> · <span className="mono">{d.name}</span> ·{' '}
            <span className="mono" title={d.digest}>
              {d.digest.slice(0, 4)}...
            </span>
          </dd>
        </dl>
      </article>
    </li>
  );
}

/** "the study “Western Cape reef survey”": a link's target by its kind and title. */
function linkTarget(name: string, titleOf: TitleOf): string {
  const kind = /^([a-z][a-z0-9_-]*):/u.exec(name)?.[1];
  const title = `“${referenceWords(name, titleOf)}”`;
  return kind ? `the ${codeLabel(kind).toLowerCase()} ${title}` : title;
}

/** "Research 1.0.0 (pack a1c0...)": the release that validated the fields. */
function ProfileRelease({ profile }: { profile: Decision['profile'] }) {
  if (profile === null) return <span className="faint">no profile recorded</span>;
  return (
    <>
      {codeLabel(profile.name)} {profile.version}{' '}
      {profile.digest === null ? (
        <span className="faint">(pack digest not recorded)</span>
      ) : (
        <span className="mono" title={profile.digest}>
          (pack {profile.digest.slice(0, 4)}...)
        </span>
      )}
    </>
  );
}
