import * as Dialog from '@radix-ui/react-dialog';
import * as Menu from '@radix-ui/react-dropdown-menu';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { shareEmailProblem } from '../account/account-forms.ts';
import { errorMessage } from '../shared/errors.ts';
import { FormField } from '../shared/form-field.tsx';
import { memoryPanelPath, profilesPath, reviewHistoryPath } from '../shared/paths.ts';
import { formatDate } from '../shared/time.ts';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';
import { inviteLine, inviteUrl, orderShares, shareLine } from './sharing.ts';

type Doc = RouterOutputs['documents']['get'];
type Open = 'share' | 'publish' | null;

/**
 * The owner's "Document actions" menu button (WAI-ARIA menu button through Radix: aria-haspopup,
 * aria-expanded, arrow keys, Escape, focus back on the button). Others have no actions here.
 */
export function DocumentActions({ doc }: { doc: Doc }) {
  const [open, setOpen] = useState<Open>(null);
  const trigger = useRef<HTMLButtonElement>(null);
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
            <Link to={memoryPanelPath(doc.id)}>Memory</Link>
          </Menu.Item>
          <Menu.Item asChild className="menu-item">
            <Link to={reviewHistoryPath(doc.id)}>Review history</Link>
          </Menu.Item>
          <Menu.Item asChild className="menu-item">
            <Link to={profilesPath(doc.id)}>Profiles</Link>
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
 * Share by email (`documents.share`) and the owner's list of shares (`documents.shares`). No mail
 * is sent and anyone may sign up with any address (SPEC §6c), so a share waits: the owner gives
 * access to the account that signed up with the address, seeing its name, or sends an invitation
 * link through a channel of their own.
 */
function ShareDialog({ doc, onCloseAutoFocus }: DialogProps) {
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [said, setSaid] = useState<string | null>(null);
  const [link, setLink] = useState<NewLink | null>(null);
  const shares = useQuery(trpc.documents.shares.queryOptions({ documentId: doc.id }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.documents.pathKey() });
  const share = useMutation(
    trpc.documents.share.mutationOptions({
      onSuccess: (_, input) => {
        setSaid(
          `Shared with ${input.email ?? ''}: it waits for you to give access, or for an invitation link.`,
        );
        setEmail('');
        return refresh();
      },
    }),
  );
  const confirm = useMutation(
    trpc.documents.confirmShare.mutationOptions({
      onSuccess: (_, input) => {
        const name = shares.data?.find((s) => s.email === input.email)?.account?.name ?? input.email;
        setSaid(`${name} can read it now.`);
        setLink(null);
        return refresh();
      },
    }),
  );
  const invite = useMutation(
    trpc.documents.inviteLink.mutationOptions({
      onSuccess: (made, input) => {
        setSaid(null);
        setLink({
          email: input.email,
          url: inviteUrl(made.path, window.location.origin),
          expiresAt: made.expiresAt,
        });
        return refresh();
      },
    }),
  );
  const failed = [share, confirm, invite].find((m) => m.isError)?.error;
  const busy = share.isPending || confirm.isPending || invite.isPending;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const wrong = shareEmailProblem(email);
    setProblem(wrong);
    if (wrong) return;
    setSaid(null);
    // As the API keeps it (lowercased), so the answer below reads as the list will.
    share.mutate({ documentId: doc.id, email: email.trim().toLowerCase() });
  };
  const list = orderShares(shares.data ?? []);
  return (
    <Dialog.Portal>
      <Dialog.Overlay className="overlay" />
      <Dialog.Content className="dialog scrolls" onCloseAutoFocus={onCloseAutoFocus}>
        <Dialog.Title>Share this document</Dialog.Title>
        <Dialog.Description>
          The person can read the document. Its runs and working memory stay yours alone.
        </Dialog.Description>
        {shares.isError && (
          <p className="notice error" role="alert">
            {errorMessage(shares.error)}
          </p>
        )}
        {list.length > 0 && (
          <ul className="share-list" aria-label="Shared with">
            {list.map((s) => (
              <li key={s.email ?? `account:${s.account?.name ?? ''}`}>
                <span>{shareLine(s, doc.title)}</span>
                {inviteLine(s) && <span className="small muted">{inviteLine(s)}</span>}
                {s.state === 'waiting' && s.email !== null && (
                  <span className="share-actions">
                    {s.account && (
                      <button
                        type="button"
                        className="button primary small-button"
                        disabled={busy}
                        aria-label={`Give access to ${s.account.name}`}
                        onClick={() => confirm.mutate({ documentId: doc.id, email: s.email! })}
                      >
                        Give access
                      </button>
                    )}
                    <button
                      type="button"
                      className="button small-button"
                      disabled={busy}
                      aria-label={`${s.invite ? 'New invitation link' : 'Invitation link'} for ${s.email}`}
                      onClick={() => invite.mutate({ documentId: doc.id, email: s.email! })}
                    >
                      {s.invite ? 'New invitation link' : 'Invitation link'}
                    </button>
                  </span>
                )}
              </li>
            ))}
          </ul>
        )}
        <div role="status">{link && <InvitationLink link={link} />}</div>
        <form className="account-form" onSubmit={submit} noValidate style={{ marginTop: '0.9rem' }}>
          <FormField
            label="Email of the person"
            type="email"
            name="email"
            autoComplete="off"
            value={email}
            onValueChange={setEmail}
            hint="Sponge sends no mail. Once someone signs up with the address you can give that account access here, or send the person an invitation link yourself."
            error={problem}
          />
          {failed && (
            <p className="notice error" role="alert">
              {errorMessage(failed)}
            </p>
          )}
          <p role="status" className="small">
            {said}
          </p>
          <div className="dialog-actions">
            <Dialog.Close className="button" type="button">
              {list.length > 0 ? 'Done' : 'Cancel'}
            </Dialog.Close>
            <button
              type="submit"
              className="button primary"
              disabled={busy}
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

interface NewLink {
  email: string;
  url: string;
  expiresAt: string;
}

/** The link, this once: the API keeps only its hash, so it cannot be shown again. */
function InvitationLink({ link }: { link: NewLink }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = async () => {
    field.current?.select();
    try {
      await navigator.clipboard.writeText(link.url);
      setCopied('yes');
    } catch {
      // No clipboard (a plain-HTTP origin, a refused permission): the link is selected instead.
      setCopied('no');
    }
  };
  return (
    <div className="notice new-key">
      <p>
        <strong>Invitation link for {link.email}.</strong> Send it yourself, by mail or chat. Whoever opens it
        first, signed in, can read the document: it works once, until {formatDate(link.expiresAt)}. A new link
        replaces this one.
      </p>
      <div className="new-key-row">
        <label className="visually-hidden" htmlFor="invitation-link">
          Invitation link
        </label>
        <input
          id="invitation-link"
          ref={field}
          className="mono"
          readOnly
          value={link.url}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" className="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      {copied && (
        <p className="small muted">
          {copied === 'yes' ? 'Copied to the clipboard.' : 'The link is selected: copy it with Ctrl+C (⌘C).'}
        </p>
      )}
    </div>
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
