import * as Dialog from '@radix-ui/react-dialog';
import { Link } from 'react-router';
import { reviewHistoryPath } from '../shared/paths.ts';
import type { ReviewForm } from './use-review-form.ts';
import { codeLabel, fieldLabel } from './words.ts';

/**
 * What the decision did: one new revision holding every record of the group (which running
 * sessions do not see, being pinned), or a rejection on record, with the records in words and
 * the way to the review history. Values the profile's codecs rewrote (a language tag `en-UK`
 * recorded as `en-GB`) are listed with the reason, so nothing changes unseen.
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
      {outcome.normalized.length > 0 && (
        <div className="small">
          <p>Recorded in the preferred form:</p>
          <ul aria-label="Values recorded in their preferred form">
            {outcome.normalized.map((n) => (
              <li key={n.path}>
                {pathWords(n.path)}: <span className="mono">{n.from}</span> →{' '}
                <span className="mono">{n.to}</span> ({n.why})
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

/** `versions.1.doi` → "Versions, row 2, DOI". */
function pathWords(path: string): string {
  return path
    .split('.')
    .map((seg) => (/^\d+$/.test(seg) ? `row ${Number(seg) + 1}` : fieldLabel(seg)))
    .join(', ');
}
