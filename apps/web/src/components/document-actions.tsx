import * as Dialog from '@radix-ui/react-dialog';
import * as Menu from '@radix-ui/react-dropdown-menu';
import { useMutation } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { shareEmailProblem, shareEntryLabel } from '../lib/account.ts';
import { errorMessage } from '../lib/errors.ts';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';
import { FormField } from './form-field.tsx';

type Doc = RouterOutputs['documents']['get'];
type Open = 'share' | 'publish' | null;

/**
 * The owner's "Document actions" menu button (WAI-ARIA menu button through Radix: aria-haspopup,
 * aria-expanded, arrow keys, Escape, focus back on the button). Others have no actions here.
 */
export function DocumentActions({ doc }: { doc: Doc }) {
  const [open, setOpen] = useState<Open>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const base = `/documents/${encodeURIComponent(doc.id)}`;
  const close = () => setOpen(null);
  // The dialogs open from a menu item that is gone by the time they close: focus the menu button.
  const refocus = (event: Event) => {
    event.preventDefault();
    trigger.current?.focus();
  };

  return (
    <>
      <Menu.Root modal={false}>
        <Menu.Trigger className="button" ref={trigger}>
          Document actions <span aria-hidden="true">▾</span>
        </Menu.Trigger>
        {/* No portal: the menu stays inside the main landmark. */}
        <Menu.Content className="menu" align="end" sideOffset={4}>
          <Menu.Item asChild className="menu-item">
            <Link to={`${base}/memory`}>Memory</Link>
          </Menu.Item>
          <Menu.Item asChild className="menu-item">
            <Link to={`${base}/reviews`}>Review history</Link>
          </Menu.Item>
          <Menu.Item asChild className="menu-item">
            <Link to={`${base}/profiles`}>Profiles</Link>
          </Menu.Item>
          <Menu.Item className="menu-item" onSelect={() => setOpen('share')}>
            Share…
          </Menu.Item>
          <Menu.Item className="menu-item" disabled={doc.published} onSelect={() => setOpen('publish')}>
            {doc.published ? 'Published' : 'Publish…'}
          </Menu.Item>
        </Menu.Content>
      </Menu.Root>
      <Dialog.Root open={open === 'share'} onOpenChange={(o) => !o && close()}>
        {open === 'share' && <ShareDialog doc={doc} onDone={close} onCloseAutoFocus={refocus} />}
      </Dialog.Root>
      <Dialog.Root open={open === 'publish'} onOpenChange={(o) => !o && close()}>
        {open === 'publish' && <PublishDialog doc={doc} onDone={close} onCloseAutoFocus={refocus} />}
      </Dialog.Root>
    </>
  );
}

interface DialogProps {
  doc: Doc;
  onDone: () => void;
  onCloseAutoFocus: (event: Event) => void;
}

/**
 * Share by email (`documents.share`). The answer is the same whether or not the address has an
 * account (SPEC §6c), so the dialog says what happens in both cases rather than guessing.
 */
function ShareDialog({ doc, onCloseAutoFocus }: DialogProps) {
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [sharedTo, setSharedTo] = useState<string | null>(null);
  const share = useMutation(
    trpc.documents.share.mutationOptions({
      onSuccess: (_, input) => {
        setSharedTo(input.email ?? null);
        setEmail('');
        return queryClient.invalidateQueries({ queryKey: trpc.documents.pathKey() });
      },
    }),
  );
  const sharedWith = doc.sharedWith ?? [];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const wrong = shareEmailProblem(email);
    setProblem(wrong);
    if (wrong) return;
    setSharedTo(null);
    // As the API keeps it (lowercased), so the answer below reads as the list will.
    share.mutate({ documentId: doc.id, email: email.trim().toLowerCase() });
  };
  return (
    <Dialog.Portal>
      <Dialog.Overlay className="overlay" />
      <Dialog.Content className="dialog" onCloseAutoFocus={onCloseAutoFocus}>
        <Dialog.Title>Share this document</Dialog.Title>
        <Dialog.Description>
          The person can read the document. Its runs and working memory stay yours alone.
        </Dialog.Description>
        {sharedWith.length > 0 && (
          <p className="small muted" style={{ marginTop: '0.6rem' }}>
            Shared with {sharedWith.map(shareEntryLabel).join(', ')}.
          </p>
        )}
        <form className="account-form" onSubmit={submit} noValidate style={{ marginTop: '0.9rem' }}>
          <FormField
            label="Email of the person"
            type="email"
            name="email"
            autoComplete="off"
            value={email}
            onValueChange={setEmail}
            hint="If no one has an account with this address yet, they can read it once they sign up with it."
            error={problem}
          />
          {share.isError && (
            <p className="notice error" role="alert">
              {errorMessage(share.error)}
            </p>
          )}
          <p role="status" className="small">
            {sharedTo && `Shared with ${sharedTo}.`}
          </p>
          <div className="dialog-actions">
            <Dialog.Close className="button" type="button">
              {sharedTo ? 'Done' : 'Cancel'}
            </Dialog.Close>
            <button
              type="submit"
              className="button primary"
              disabled={share.isPending}
              aria-busy={share.isPending || undefined}
            >
              Share
            </button>
          </div>
        </form>
      </Dialog.Content>
    </Dialog.Portal>
  );
}

function PublishDialog({ doc, onDone, onCloseAutoFocus }: DialogProps) {
  const publish = useMutation(
    trpc.documents.publish.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.documents.pathKey() });
        onDone();
      },
    }),
  );
  return (
    <Dialog.Portal>
      <Dialog.Overlay className="overlay" />
      <Dialog.Content className="dialog" onCloseAutoFocus={onCloseAutoFocus}>
        <Dialog.Title>Publish this document?</Dialog.Title>
        <Dialog.Description>
          Every signed-in person can then read it. Its runs and working memory stay yours alone.
        </Dialog.Description>
        {publish.isError && (
          <p className="notice error" role="alert">
            {errorMessage(publish.error)}
          </p>
        )}
        <div className="dialog-actions">
          <Dialog.Close className="button">Cancel</Dialog.Close>
          <button
            type="button"
            className="button primary"
            disabled={publish.isPending}
            onClick={() => publish.mutate({ documentId: doc.id })}
          >
            Publish
          </button>
        </div>
      </Dialog.Content>
    </Dialog.Portal>
  );
}
