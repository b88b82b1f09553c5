import * as Dialog from '@radix-ui/react-dialog';
import { Link } from 'react-router';
import { reviewHistoryPath } from '../shared/paths.ts';
import type { ReviewForm } from './use-review-form.ts';

/**
 * What the decision did: a new revision (which running sessions do not see, being pinned) or a
 * rejection on record, with the way to the review history. Values the profile's codecs rewrote
 * (a language tag `en-UK` recorded as `en-GB`) are listed with the reason, so nothing changes
 * unseen.
 */
export function Recorded({
  outcome,
  documentId,
  pinnedRevision,
}: {
  outcome: NonNullable<ReviewForm['outcome']>;
  documentId: string;
  pinnedRevision: number;
}) {
  return (
    <>
      <Dialog.Description asChild>
        <p role="status">
          {outcome.decision === 'accept' && outcome.revision !== null
            ? `Revision ${outcome.revision} created. New runs will see it; running sessions keep revision ${pinnedRevision}.`
            : 'Rejection recorded. No revision was created; the decision stays in the review history.'}
        </p>
      </Dialog.Description>
      <p className="small muted">
        {outcome.name} · {outcome.decision === 'accept' ? 'accepted' : 'rejected'}
      </p>
      {outcome.normalized.length > 0 && (
        <div className="small">
          <p>Recorded in the preferred form:</p>
          <ul aria-label="Values recorded in their preferred form">
            {outcome.normalized.map((n) => (
              <li key={n.path}>
                <span className="mono">{n.path}</span>: <span className="mono">{n.from}</span> →{' '}
                <span className="mono">{n.to}</span>: {n.why}
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
