import * as Dialog from '@radix-ui/react-dialog';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { ConfirmActions } from '../shared/confirm-actions.tsx';
import { FormField } from '../shared/form-field.tsx';
import { ActionError, BusyButton, NotLoaded } from '../shared/states.tsx';
import { useTitle } from '../shared/use-title.ts';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';
import { apiKeyLabelProblem } from './account-forms.ts';
import { agentKindText, connectedText, lastUsedText, revokeConsequence } from './connected-agents.ts';
import { mcpClientConfig, mcpEndpoint } from './mcp-config.ts';

type Agent = RouterOutputs['auth']['connectedAgents'][number];
type Created = RouterOutputs['auth']['createApiKey'];

const refreshAgents = () => queryClient.invalidateQueries({ queryKey: trpc.auth.connectedAgents.queryKey() });

/**
 * Everything that acts for the owner outside this browser (SPEC §6c), on one page: the API keys
 * they made and the agents they let in with an OAuth sign-in, each with when it was connected and
 * last used, and a Revoke that ends it at once. A new key is made here and shown once.
 */
export default function ConnectedAgentsPage() {
  useTitle('Connected agents');
  const agents = useQuery(trpc.auth.connectedAgents.queryOptions());
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Connected agents</h1>
          <p className="muted" style={{ marginTop: '0.4rem', maxWidth: '46rem' }}>
            Agents that can reach your library: those you gave an API key, and those you allowed when they
            signed in. Revoke any of them to end its access at once.
          </p>
        </div>
      </div>
      <section className="box" aria-labelledby="agents-list">
        <h2 id="agents-list" tabIndex={-1}>
          Your agents
        </h2>
        {!agents.isSuccess ? (
          <NotLoaded query={agents} what="your agents" rows={2} />
        ) : agents.data.length === 0 ? (
          <p className="muted" style={{ marginTop: '0.5rem' }}>
            No agent is connected: you have no API keys, and no agent signed in with your permission.
          </p>
        ) : (
          <AgentTable agents={agents.data} />
        )}
      </section>
      <CreateKey />
      <McpClient />
    </>
  );
}

/** Where an MCP client connects, with a key or by signing in, and what to paste (docs/mcp.md). */
function McpClient() {
  const origin = window.location.origin;
  return (
    <section className="box" aria-labelledby="agents-mcp" style={{ marginTop: '1rem' }}>
      <h2 id="agents-mcp">Use with an MCP client</h2>
      <p style={{ marginTop: '0.5rem', maxWidth: '46rem' }}>
        Claude Desktop, an IDE or a script can reach your library at{' '}
        <code className="mono">{mcpEndpoint(origin)}</code> with a key as its bearer token. It can search and
        read your own documents and list their reviewed findings: read-only, and never working memory.
      </p>
      <p className="small muted">A configuration for clients that send headers (Cursor and others):</p>
      <pre aria-label="MCP client configuration">{mcpClientConfig(origin)}</pre>
      <p className="small muted">
        Replace <code className="mono">ak_…</code> with your key. A client that supports signing in needs only
        the address: it asks you to allow it here, and then appears in the list above. Claude Desktop and VS
        Code configurations are in docs/mcp.md.
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
        await refreshAgents();
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
    <section className="box" aria-labelledby="agents-create" style={{ marginTop: '1rem' }}>
      <h2 id="agents-create">Create an API key</h2>
      <p className="muted" style={{ marginTop: '0.4rem', maxWidth: '46rem' }}>
        An API key lets your own agent read and search your library and add documents, sent as a bearer token.
        It never opens working memory or the agent tools of a run, and it does not sign in here.
      </p>
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
        <BusyButton busy={create.isPending} type="submit" className="button primary">
          Create key
        </BusyButton>
      </form>
      <ActionError error={create.error} />
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

/** The agent being revoked, and the button that asked, to give focus back to on Cancel. */
interface Revoking {
  agent: Agent;
  button: HTMLButtonElement;
}

function AgentTable({ agents }: { agents: Agent[] }) {
  const [revoking, setRevoking] = useState<Revoking | null>(null);
  return (
    <>
      <table className="fields-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Connected</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {agents.map((agent) => (
            <tr key={agent.id}>
              <td>{agent.name}</td>
              <td>{agentKindText(agent.kind)}</td>
              <td>{connectedText(agent.createdAt)}</td>
              <td>{lastUsedText(agent.lastUsedAt)}</td>
              <td style={{ textAlign: 'right' }}>
                <button
                  type="button"
                  className="button danger small-button"
                  aria-label={`Revoke ${agent.name}`}
                  onClick={(e) => setRevoking({ agent, button: e.currentTarget })}
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
 * The confirmation before an agent is revoked. It lives beside the table, not in the agent's row:
 * the row goes away with the agent, and the dialog must not go with it.
 */
function RevokeDialog({ revoking, onClose }: { revoking: Revoking; onClose: () => void }) {
  const [open, setOpen] = useState(true);
  // A ref, not state: Radix reads it when the dialog closes, after this dialog's last render.
  const revoked = useRef(false);
  const revoke = useMutation(trpc.auth.revokeConnectedAgent.mutationOptions({ onSuccess: refreshAgents }));
  const { agent } = revoking;
  // The ref is set from the click's own callbacks, never during render (react-hooks/refs).
  const revokeNow = () =>
    revoke.mutate(
      { id: agent.id },
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
            // Back to the agent's Revoke button, or, the agent gone, to the list's heading.
            event.preventDefault();
            if (revoked.current) document.getElementById('agents-list')?.focus();
            else revoking.button.focus();
            onClose();
          }}
        >
          <Dialog.Title>Revoke “{agent.name}”?</Dialog.Title>
          <Dialog.Description>{revokeConsequence(agent.kind)}</Dialog.Description>
          <ConfirmActions action={revoke} onConfirm={revokeNow}>
            {agent.kind === 'api_key' ? 'Revoke key' : 'Revoke access'}
          </ConfirmActions>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
