import * as Dialog from '@radix-ui/react-dialog';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { FormField } from '../components/form-field.tsx';
import { ErrorState, SkeletonRows } from '../components/states.tsx';
import { apiKeyLabelProblem } from '../lib/account.ts';
import { errorMessage } from '../lib/errors.ts';
import { mcpClientConfig, mcpEndpoint } from '../lib/mcp-config.ts';
import { formatDateAndClock } from '../lib/time.ts';
import { useTitle } from '../lib/use-title.ts';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';

type ApiKey = RouterOutputs['auth']['apiKeys'][number];
type Created = RouterOutputs['auth']['createApiKey'];

/**
 * The owner's API keys (SPEC §1): the credential of their own agent. Listed by label and date;
 * a new key is shown once, right after it is made; a revoked key stops working at once.
 */
export default function ApiKeysPage() {
  useTitle('API keys');
  const keys = useQuery(trpc.auth.apiKeys.queryOptions());
  return (
    <>
      <div className="page-head">
        <div>
          <h1>API keys</h1>
          <p className="muted" style={{ marginTop: '0.4rem', maxWidth: '46rem' }}>
            An API key lets your own agent read and search your library and add documents, sent as a bearer
            token. It never opens working memory or the agent tools of a run, and it does not sign in here.
          </p>
        </div>
      </div>
      <CreateKey />
      <McpClient />
      <section className="box" aria-labelledby="api-keys-list" style={{ marginTop: '1rem' }}>
        <h2 id="api-keys-list" tabIndex={-1}>
          Your keys
        </h2>
        {keys.isPending ? (
          <div aria-busy="true">
            <span className="visually-hidden">Loading API keys…</span>
            <SkeletonRows rows={2} />
          </div>
        ) : keys.isError ? (
          <ErrorState
            error={keys.error}
            onRetry={() => void keys.refetch()}
            title="Could not load your API keys"
          />
        ) : keys.data.length === 0 ? (
          <p className="muted" style={{ marginTop: '0.5rem' }}>
            You have no API keys.
          </p>
        ) : (
          <KeyTable keys={keys.data} />
        )}
      </section>
    </>
  );
}

/** Where an MCP client connects with a key, and what to paste into it (docs/mcp.md). */
function McpClient() {
  const origin = window.location.origin;
  return (
    <section className="box" aria-labelledby="api-keys-mcp" style={{ marginTop: '1rem' }}>
      <h2 id="api-keys-mcp">Use with an MCP client</h2>
      <p style={{ marginTop: '0.5rem', maxWidth: '46rem' }}>
        Claude Desktop, an IDE or a script can reach your library at{' '}
        <code className="mono">{mcpEndpoint(origin)}</code> with a key as its bearer token. It can search and
        read your own documents and list their reviewed findings: read-only, and never working memory.
      </p>
      <p className="small muted">A configuration for clients that send headers (Cursor and others):</p>
      <pre aria-label="MCP client configuration">{mcpClientConfig(origin)}</pre>
      <p className="small muted">
        Replace <code className="mono">ak_…</code> with your key. Claude Desktop and VS Code configurations
        are in docs/mcp.md.
      </p>
    </section>
  );
}

function CreateKey() {
  const [label, setLabel] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [created, setCreated] = useState<Created | null>(null);
  const create = useMutation(
    trpc.auth.createApiKey.mutationOptions({
      onSuccess: async (key) => {
        setCreated(key);
        setLabel('');
        await queryClient.invalidateQueries({ queryKey: trpc.auth.apiKeys.queryKey() });
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const wrong = apiKeyLabelProblem(label);
    setProblem(wrong);
    if (wrong) return;
    setCreated(null);
    create.mutate({ label: label.trim() });
  };
  return (
    <section className="box" aria-labelledby="api-keys-create">
      <h2 id="api-keys-create">Create a key</h2>
      <form className="account-form inline" onSubmit={submit} noValidate>
        <FormField
          label="Label"
          name="label"
          autoComplete="off"
          value={label}
          onValueChange={setLabel}
          hint="Say where the key is used, for example “laptop agent”."
          error={problem}
        />
        <button
          type="submit"
          className="button primary"
          disabled={create.isPending}
          aria-busy={create.isPending || undefined}
        >
          Create key
        </button>
      </form>
      {create.isError && (
        <p className="notice error" role="alert">
          {errorMessage(create.error)}
        </p>
      )}
      <div role="status">{created && <NewKey created={created} />}</div>
    </section>
  );
}

/** The key itself, this once: the API keeps only its hash. */
function NewKey({ created }: { created: Created }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = async () => {
    field.current?.select();
    try {
      await navigator.clipboard.writeText(created.apiKey);
      setCopied('yes');
    } catch {
      // No clipboard (a plain-HTTP origin, a refused permission): the key is selected instead.
      setCopied('no');
    }
  };
  return (
    <div className="notice new-key">
      <p>
        <strong>Key “{created.label}” created.</strong> Copy it now: it is shown only this once, and Sponge
        keeps no copy it could show again.
      </p>
      <div className="new-key-row">
        <label className="visually-hidden" htmlFor="new-api-key">
          New API key
        </label>
        <input
          id="new-api-key"
          ref={field}
          className="mono"
          readOnly
          value={created.apiKey}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" className="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      {copied && (
        <p className="small muted">
          {copied === 'yes' ? 'Copied to the clipboard.' : 'The key is selected: copy it with Ctrl+C (⌘C).'}
        </p>
      )}
    </div>
  );
}

/** The key being revoked, and the button that asked, to give focus back to on Cancel. */
interface Revoking {
  key: ApiKey;
  button: HTMLButtonElement;
}

function KeyTable({ keys }: { keys: ApiKey[] }) {
  const [revoking, setRevoking] = useState<Revoking | null>(null);
  return (
    <>
      <table className="fields-table">
        <thead>
          <tr>
            <th scope="col">Label</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <td>{key.label}</td>
              <td>{formatDateAndClock(key.createdAt)}</td>
              <td style={{ textAlign: 'right' }}>
                <button
                  type="button"
                  className="button danger small-button"
                  aria-label={`Revoke ${key.label}`}
                  onClick={(e) => setRevoking({ key, button: e.currentTarget })}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {revoking && <RevokeDialog revoking={revoking} onClose={() => setRevoking(null)} />}
    </>
  );
}

/**
 * The confirmation before a key is revoked. It lives beside the table, not in the key's row: the
 * row goes away with the key, and the dialog must not go with it.
 */
function RevokeDialog({ revoking, onClose }: { revoking: Revoking; onClose: () => void }) {
  const [open, setOpen] = useState(true);
  // A ref, not state: Radix reads it when the dialog closes, after this dialog's last render.
  const revoked = useRef(false);
  const revoke = useMutation(
    trpc.auth.revokeApiKey.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.auth.apiKeys.queryKey() }),
    }),
  );
  // The ref is set from the click's own callbacks, never during render (react-hooks/refs).
  const revokeNow = () =>
    revoke.mutate(
      { id: revoking.key.id },
      {
        onSuccess: () => {
          revoked.current = true;
          setOpen(false);
        },
      },
    );
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        if (!revoke.isPending) setOpen(next);
      }}
    >
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content
          className="dialog"
          onCloseAutoFocus={(event) => {
            // Back to the key's Revoke button, or, the key gone, to the list's heading.
            event.preventDefault();
            if (revoked.current) document.getElementById('api-keys-list')?.focus();
            else revoking.button.focus();
            onClose();
          }}
        >
          <Dialog.Title>Revoke “{revoking.key.label}”?</Dialog.Title>
          <Dialog.Description>
            An agent that uses this key is refused from now on. This cannot be undone; you can create a new
            key.
          </Dialog.Description>
          {revoke.isError && (
            <p className="notice error" role="alert">
              {errorMessage(revoke.error)}
            </p>
          )}
          <div className="dialog-actions">
            <Dialog.Close className="button" disabled={revoke.isPending}>
              Cancel
            </Dialog.Close>
            <button
              type="button"
              className="button danger-solid"
              disabled={revoke.isPending}
              aria-busy={revoke.isPending || undefined}
              onClick={revokeNow}
            >
              Revoke key
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
