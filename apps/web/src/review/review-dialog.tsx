import * as Dialog from '@radix-ui/react-dialog';
import { useQueries, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { trpc } from '../trpc.ts';
import { Advanced } from './advanced.tsx';
import { DecisionFooter } from './decision-footer.tsx';
import { RecordFields } from './field-inputs.tsx';
import { KindChoice } from './kind-choice.tsx';
import { ProfileOffer } from './profile-offer.tsx';
import { Recorded } from './recorded.tsx';
import { SourcePassage } from './source-passage.tsx';
import { MAIN, useReviewForm } from './use-review-form.ts';
import type { Installed, Note } from './use-review-form.ts';
import { codeLabel, proposalTitle, statementFrom } from './words.ts';

type Session = { id: string; pinnedRevision: number };

/**
 * The review dialog (UI.md, *In the researcher's words*): from a working note, what it is (a kind
 * of a profile, installed here on the reviewer's word when none fits yet), its fields by label,
 * the records it refers to picked or made in the same dialog, the cited passage on its page of
 * the source, and one decision for them all. The checks here are a convenience; the API
 * re-checks everything and its messages are shown next to the fields they are about.
 *
 * What the dialog reads is asked for while the panel is open, before any click, so it opens at
 * once: only the cited page is left to load.
 */
export function ReviewDialog({
  documentId,
  session,
  note,
  onClose,
}: {
  documentId: string;
  session: Session;
  /** The note being proposed; null keeps the dialog closed. */
  note: Note | null;
  onClose: () => void;
}) {
  const installed = useQuery(trpc.profiles.installed.queryOptions({ documentId }));
  useQueries({
    queries: (installed.data ?? []).map((p) => ({
      ...trpc.profiles.preview.queryOptions({ name: p.name }),
      staleTime: Infinity,
    })),
  });
  // The profile that fits a note, offered when it is not installed (profile-offer.tsx).
  useQuery({ ...trpc.profiles.list.queryOptions({ documentId }), staleTime: 60_000 });
  useQuery(trpc.review.history.queryOptions({ documentId }));
  useQuery(trpc.documents.list.queryOptions());
  return (
    <Dialog.Root open={note !== null} onOpenChange={(open) => !open && onClose()}>
      {note && (
        <Dialog.Portal>
          <Dialog.Overlay className="overlay" />
          <Workbench
            key={`${session.id}/${note.name}`}
            documentId={documentId}
            session={session}
            note={note}
            installed={installed.data}
          />
        </Dialog.Portal>
      )}
    </Dialog.Root>
  );
}

/**
 * One dialog from the click to the outcome: the profile offer, the form and what the decision did
 * are the same Content, so the dialog never closes and reopens under the reviewer (and a screen
 * reader hears one dialog).
 */
function Workbench({
  documentId,
  session,
  note,
  installed,
}: {
  documentId: string;
  session: Session;
  note: Note;
  installed: Installed | undefined;
}) {
  const [decided, setDecided] = useState(false);
  const content = useRef<HTMLDivElement>(null);
  return (
    <Dialog.Content className={decided ? 'dialog' : 'dialog wide'} ref={content}>
      <Dialog.Title>{proposalTitle(statementFrom(note))}</Dialog.Title>
      {installed && installed.length > 0 ? (
        <ProposalForm
          documentId={documentId}
          session={session}
          note={note}
          installed={installed}
          content={content}
          onDecided={setDecided}
        />
      ) : (
        <>
          <Dialog.Description className="small muted">{ABOUT}</Dialog.Description>
          {installed ? (
            <ProfileOffer documentId={documentId} noteKind={note.kind} installed={[]} alone />
          ) : (
            <p className="muted">Loading profiles…</p>
          )}
          <div className="dialog-actions">
            <Dialog.Close className="button">Cancel</Dialog.Close>
          </div>
        </>
      )}
    </Dialog.Content>
  );
}

const ABOUT =
  'Reviewed knowledge lasts past the session: each record cites a passage of your library and carries your decision. The note itself is never evidence.';

function ProposalForm({
  documentId,
  session,
  note,
  installed,
  content,
  onDecided,
}: {
  documentId: string;
  session: Session;
  note: Note;
  installed: Installed;
  content: React.RefObject<HTMLDivElement | null>;
  /** Whether the outcome shows: the dialog narrows for it. */
  onDecided: (decided: boolean) => void;
}) {
  const form = useReviewForm({ documentId, session, note, installed });
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    form.submit();
  };
  const decided = form.outcome !== null;
  useEffect(() => onDecided(decided), [decided, onDecided]);
  // Once the kinds are there, the keyboard starts at "What is it?" unless it is already inside
  // the dialog (Radix puts it there on opening; a profile just installed took its button away).
  const ready = !form.loadingKinds;
  useEffect(() => {
    const box = content.current;
    if (!ready || !box) return;
    const active = document.activeElement;
    if (active && active !== box && box.contains(active)) return;
    box.querySelector<HTMLElement>('input[name="kind"]:checked, input[name="kind"]')?.focus();
  }, [ready, content]);
  if (form.outcome) {
    return (
      <Recorded
        outcome={form.outcome}
        records={form.submitted}
        documentId={documentId}
        pinnedRevision={session.pinnedRevision}
      />
    );
  }
  return (
    <>
      <Dialog.Description className="small muted">{ABOUT} Fields marked * are required.</Dialog.Description>
      <ProfileOffer
        documentId={documentId}
        noteKind={note.kind}
        installed={installed.map((p) => p.name)}
        alone={false}
      />
      <form className="workbench" onSubmit={submit} noValidate>
        {form.loadingKinds ? (
          <p className="muted">Loading the profile’s kinds…</p>
        ) : (
          <>
            <KindChoice form={form} />
            {form.chosen && (
              <div className="wb-row">
                <span className="wb-label" aria-hidden="true">
                  {codeLabel(form.chosen.kind.name)}
                </span>
                <div role="group" aria-label={`The ${codeLabel(form.chosen.kind.name).toLowerCase()}`}>
                  <RecordFields form={form} draftId={MAIN} />
                </div>
              </div>
            )}
          </>
        )}
        <SourcePassage form={form} />
        <DecisionFooter form={form}>
          <Advanced form={form} />
        </DecisionFooter>
      </form>
    </>
  );
}
