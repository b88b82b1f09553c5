import { SPONGE_LIMITS } from '@sponge/contract';
import * as Dialog from '@radix-ui/react-dialog';
import { useId } from 'react';
import { errorIssues, errorMessage } from '../shared/errors.ts';
import { BusyButton } from '../shared/states.tsx';
import { FieldErrors } from './field-errors.tsx';
import { MAIN } from './use-review-form.ts';
import type { ReviewForm } from './use-review-form.ts';

/**
 * Accept or reject, the reviewer's comment, why the last attempt was refused (messages the
 * inputs above have no place for included), and the buttons.
 */
export function DecisionFooter({ form, children }: { form: ReviewForm; children?: React.ReactNode }) {
  const commentId = useId();
  const { decide, decision, unplaced } = form;
  const at = (path: string) => form.at(MAIN, path);
  return (
    <>
      <fieldset className="wb-row plain">
        <legend className="wb-label">Decision</legend>
        <div className="radios">
          <label>
            <input
              type="radio"
              name="decision"
              value="accept"
              checked={decision === 'accept'}
              onChange={() => form.setDecision('accept')}
            />{' '}
            Accept
          </label>
          <label>
            <input
              type="radio"
              name="decision"
              value="reject"
              checked={decision === 'reject'}
              onChange={() => form.setDecision('reject')}
            />{' '}
            Reject
          </label>
        </div>
      </fieldset>

      <div className="wb-row">
        <label htmlFor={commentId}>Comment</label>
        <div>
          <textarea
            id={commentId}
            rows={2}
            maxLength={SPONGE_LIMITS.commentChars}
            value={form.comment}
            aria-invalid={at('comment').length > 0 || undefined}
            aria-describedby={at('comment').length > 0 ? `${commentId}-err` : undefined}
            onChange={(e) => form.editComment(e.target.value)}
          />
          <FieldErrors id={`${commentId}-err`} messages={at('comment')} />
        </div>
      </div>

      {children}

      {decide.isError && (
        <p className="notice error" role="alert">
          {errorIssues(decide.error).length > 0
            ? 'The decision was not recorded: see the messages next to the fields.'
            : errorMessage(decide.error)}
          {unplaced.length > 0 && ` ${unplaced.map((i) => i.message).join('; ')}`}
        </p>
      )}
      <div className="dialog-actions">
        <Dialog.Close className="button" type="button" disabled={decide.isPending}>
          Cancel
        </Dialog.Close>
        <BusyButton busy={decide.isPending} type="submit" className="button primary" disabled={!form.chosen}>
          Record decision
        </BusyButton>
      </div>
    </>
  );
}
