import * as Dialog from '@radix-ui/react-dialog';
import * as Menu from '@radix-ui/react-dropdown-menu';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../lib/errors.ts';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';

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

function ShareDialog({ doc, onDone, onCloseAutoFocus }: DialogProps) {
  const selectId = useId();
  const users = useQuery(trpc.auth.demoUsers.queryOptions());
  const shared = new Set((doc.sharedWith ?? []).map((u) => u.id));
  const candidates = (users.data ?? []).filter((u) => u.id !== doc.ownerId && !shared.has(u.id));
  const [userId, setUserId] = useState('');
  const chosen = userId || candidates[0]?.id || '';
  const share = useMutation(
    trpc.documents.share.mutationOptions({
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
        <Dialog.Title>Share this document</Dialog.Title>
        <Dialog.Description>
          The person can read the document. Its runs and working memory stay yours alone.
        </Dialog.Description>
        {doc.sharedWith && doc.sharedWith.length > 0 && (
          <p className="small muted" style={{ marginTop: '0.6rem' }}>
            Shared with {doc.sharedWith.map((u) => u.name).join(', ')}.
          </p>
        )}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (chosen) share.mutate({ documentId: doc.id, userId: chosen });
          }}
        >
          {candidates.length > 0 ? (
            <p className="field" style={{ marginTop: '0.9rem' }}>
              <label htmlFor={selectId}>Person</label>{' '}
              <select id={selectId} value={chosen} onChange={(e) => setUserId(e.target.value)}>
                {candidates.map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.name}
                  </option>
                ))}
              </select>
            </p>
          ) : (
            <p className="notice" style={{ marginTop: '0.9rem' }}>
              {users.isPending ? 'Loading people…' : 'There is no one else to share with.'}
            </p>
          )}
          {share.isError && (
            <p className="notice error" role="alert">
              {errorMessage(share.error)}
            </p>
          )}
          <div className="dialog-actions">
            <Dialog.Close className="button" type="button">
              Cancel
            </Dialog.Close>
            <button type="submit" className="button primary" disabled={!chosen || share.isPending}>
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
