import { useMutation, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { ErrorState, PageLoading } from '../shared/states.tsx';
import { useTitle } from '../shared/use-title.ts';

/** The API's OAuth routes for MCP clients (apps/api/src/mcp/oauth.ts). */
const PUBLIC_CLIENT_PATH = '/oauth/oauth2/public-client';
const CONSENT_PATH = '/oauth/oauth2/consent';

interface PublicClient {
  client_id: string;
  client_name?: string;
  client_uri?: string;
  /** Registered through the open registration route: its name and addresses are its own claims. */
  self_registered?: boolean;
}

async function oauthJson<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, {
    ...init,
    credentials: 'same-origin',
    headers: { accept: 'application/json', ...(init?.body ? { 'content-type': 'application/json' } : {}) },
  });
  const body = (await res.json().catch(() => ({}))) as T & { error_description?: string; message?: string };
  if (!res.ok)
    throw new Error(body.error_description ?? body.message ?? `The server answered ${res.status}.`);
  return body;
}

/**
 * Where the browser goes back to with the answer, in full (the API checked it is one the client
 * registered): a look-alike host or an odd path is for the owner to see before allowing. As the
 * URL parser writes it, so a host in another script shows as its `xn--` form, not as a look-alike.
 */
function returnAddress(redirectUri: string | null): string | null {
  if (!redirectUri) return null;
  try {
    return new URL(redirectUri).href;
  } catch {
    return null;
  }
}

/**
 * Consent for an MCP client's OAuth sign-in (SPEC §7d): the API sends the owner here with the
 * authorization request's signed query. The page names the client and what it gets — read-only
 * access to the library through `/mcp`, never working memory — and hands the answer back to the
 * API, which sends the browser on to the client.
 */
export default function ConnectPage() {
  useTitle('Connect an agent');
  const [params] = useSearchParams();
  const clientId = params.get('client_id') ?? '';
  const returnTo = returnAddress(params.get('redirect_uri'));
  const client = useQuery({
    queryKey: ['oauth-client', clientId],
    queryFn: () =>
      oauthJson<PublicClient>(
        `${PUBLIC_CLIENT_PATH}?${new URLSearchParams({ client_id: clientId }).toString()}`,
      ),
    enabled: clientId !== '',
    retry: false,
  });
  const answer = useMutation({
    mutationFn: (accept: boolean) =>
      oauthJson<{ url: string }>(CONSENT_PATH, {
        method: 'POST',
        body: JSON.stringify({ accept, oauth_query: params.toString() }),
      }),
    onSuccess: (res) => window.location.assign(res.url),
  });

  if (clientId === '' || !params.has('sig')) {
    return (
      <div className="signin box">
        <h1>Connect an agent</h1>
        <p className="notice error" role="alert">
          This link is incomplete. Start the connection again from your agent.
        </p>
      </div>
    );
  }
  if (client.isPending) return <PageLoading />;
  if (client.isError) {
    return (
      <div className="signin box">
        <ErrorState
          error={client.error}
          onRetry={() => void client.refetch()}
          title="Could not load the agent"
        />
      </div>
    );
  }
  const name = client.data.client_name?.trim() || 'An unnamed agent';
  // Unverified unless the API says otherwise: no client here was checked by anyone.
  const selfRegistered = client.data.self_registered !== false;
  return (
    <div className="signin box">
      <h1>Connect an agent</h1>
      <p>
        <strong>{name}</strong> asks for read-only access to your library.
      </p>
      {selfRegistered && (
        <p className="notice warn">
          <strong>Unverified agent.</strong> This agent registered itself; Sponge has not checked who made it.
          Its name is what it calls itself. Allow it only if you started this connection from an agent you
          trust.
        </p>
      )}
      <p>It will be able to:</p>
      <ul>
        <li>search your library and read passages of your documents;</li>
        <li>list your documents and their reviewed findings.</li>
      </ul>
      <p className="muted">
        It cannot add, change or remove anything, and it never sees working memory: no notes, sessions or
        runs.
      </p>
      {returnTo && (
        <p className="small">
          After you answer, your browser goes back to{' '}
          <code className="mono" style={{ overflowWrap: 'anywhere' }}>
            {returnTo}
          </code>
          .
        </p>
      )}
      {answer.isError && (
        <p className="notice error" role="alert">
          {answer.error.message}
        </p>
      )}
      <div className="actions" style={{ display: 'flex', gap: '0.5rem', marginTop: '1rem' }}>
        <button
          type="button"
          className="button primary"
          disabled={answer.isPending}
          aria-busy={answer.isPending || undefined}
          onClick={() => answer.mutate(true)}
        >
          Allow read-only access
        </button>
        <button
          type="button"
          className="button"
          disabled={answer.isPending}
          onClick={() => answer.mutate(false)}
        >
          Deny
        </button>
      </div>
    </div>
  );
}
