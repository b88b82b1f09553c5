import * as Dialog from '@radix-ui/react-dialog';
import { DecisionFooter } from './decision-footer.tsx';
import { RecordInputs } from './record-inputs.tsx';
import { Recorded } from './recorded.tsx';
import { SourcePassage } from './source-passage.tsx';
import { useReviewForm } from './use-review-form.ts';
import type { Installed, Note } from './use-review-form.ts';

/**
 * The review workbench (UI.md): from a working note, pick a kind of an installed profile, fill
 * its fields, cite a passage of a library document, and record accept or reject with a comment.
 * The passage check here is a convenience; the API re-checks everything and its per-field
 * messages are shown next to the fields.
 */
export function ReviewDialog({
  documentId,
  session,
  note,
  installed,
  knownNames,
  onClose,
}: {
  documentId: string;
  session: { id: string; pinnedRevision: number };
  /** The note being proposed; null keeps the dialog closed. */
  note: Note | null;
  installed: Installed;
  knownNames: readonly string[];
  onClose: () => void;
}) {
  return (
    <Dialog.Root open={note !== null} onOpenChange={(open) => !open && onClose()}>
      {note && (
        <Workbench
          key={`${session.id}/${note.name}`}
          documentId={documentId}
          session={session}
          note={note}
          installed={installed}
          knownNames={knownNames}
        />
      )}
    </Dialog.Root>
  );
}

function Workbench({
  documentId,
  session,
  note,
  installed,
  knownNames,
}: {
  documentId: string;
  session: { id: string; pinnedRevision: number };
  note: Note;
  installed: Installed;
  knownNames: readonly string[];
}) {
  const form = useReviewForm({ documentId, session, note, installed });
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    form.submit();
  };
  return (
    <Dialog.Portal>
      <Dialog.Overlay className="overlay" />
      {/* One Content for the form and its outcome: a new one would move the focus out and back. */}
      <Dialog.Content className={form.outcome ? 'dialog' : 'dialog wide'}>
        <Dialog.Title>{`Propose for review: ${note.name}`}</Dialog.Title>
        {form.outcome ? (
          <Recorded outcome={form.outcome} documentId={documentId} pinnedRevision={session.pinnedRevision} />
        ) : (
          <>
            <Dialog.Description className="small muted">
              A reviewed record needs a kind of an installed profile with valid fields, a passage of a library
              document, and your decision. The note itself is never evidence.
            </Dialog.Description>
            <form className="workbench" onSubmit={submit} noValidate>
              <RecordInputs form={form} knownNames={knownNames} />
              <SourcePassage form={form} />
              <DecisionFooter form={form} />
            </form>
          </>
        )}
      </Dialog.Content>
    </Dialog.Portal>
  );
}
