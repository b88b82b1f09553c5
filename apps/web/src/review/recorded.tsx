import * as Dialog from '@radix-ui/react-dialog';
import { Link } from 'react-router';
import { reviewHistoryPath } from '../shared/paths.ts';
import type { ReviewForm } from './use-review-form.ts';
import { rewritesOf } from './review-form.ts';
import { codeLabel } from './words.ts';

/**
 * What the decision did: one new revision holding every record of the group (which running
 * sessions do not see, being pinned), or a rejection on record, with the records in words and
 * the way to the review history. Values the profile's codecs rewrote in any of the records are
 * listed with the reason (rewritesOf), so nothing changes unseen.
 */
export function Recorded({
  outcome,
  records,
  documentId,
  pinnedRevision,
}: {
  outcome: NonNullable<ReviewForm['outcome']>;
  /** The records as the dialog sent them: kind and statement, main first. */
  records: ReadonlyArray<{ kind: string; label: string }>;
  documentId: string;
  pinnedRevision: number;
}) {
  const accepted = outcome.decision === 'accept' && outcome.revision !== null;
  const rewrites = rewritesOf(outcome);
  return (
    <>
      <Dialog.Description asChild>
        <p role="status">
          {accepted
            ? `Revision ${outcome.revision} created. New runs will see it; running sessions keep revision ${pinnedRevision}.`
            : 'Rejection recorded. No revision was created; the decision stays in the review history.'}
        </p>
      </Dialog.Description>
      <ul className="recorded-records" aria-label={accepted ? 'Accepted' : 'Rejected'}>
        {records.map((r, i) => (
          <li key={i}>
            <strong>{i === 0 ? codeLabel(r.kind) : `New ${codeLabel(r.kind).toLowerCase()}`}</strong>:{' '}
            {r.label || '—'}
          </li>
        ))}
      </ul>
      {rewrites.length > 0 && (
        <div className="small">
          <p>Recorded in the preferred form:</p>
          <ul aria-label="Values recorded in their preferred form">
            {rewrites.map((n) => (
              <li key={`${n.where}/${n.from}`}>
                {n.where}: <span className="mono">{n.from}</span> → <span className="mono">{n.to}</span> (
                {n.why})
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="dialog-actions">
        <Link className="button" to={reviewHistoryPath(documentId)}>
          Review history
        </Link>
        {/* The submit button that had the focus is gone: Close takes it as this view mounts. */}
        <Dialog.Close className="button primary" autoFocus>
          Close
        </Dialog.Close>
      </div>
    </>
  );
}
