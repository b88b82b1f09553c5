import { Link, useSearchParams } from 'react-router';
import { useTitle } from '../shared/use-title.ts';

/**
 * What each refusal means, in the app's own words. The query comes from whoever made the link, so
 * the page never presents its text as its own: the library's description is shown only as a
 * detail, beside the error code.
 */
const REASONS: Record<string, string> = {
  invalid_client: 'The agent is not registered with this server, or its registration is gone.',
  client_disabled: 'The agent has been disabled on this server.',
  invalid_redirect: 'The agent asked to send the answer somewhere it did not register.',
  unauthorized_client: 'The agent is not allowed to ask for access this way.',
  unsupported_response_type: 'The agent asked for something this server does not offer.',
  access_denied: 'Access was denied.',
};

/**
 * The end of an MCP client's OAuth sign-in that cannot go back to the client (SPEC §7d): the API
 * sends the browser here (apps/api/src/mcp/oauth.ts, CONNECT_ERROR_PAGE) instead of to an
 * unverified address. Open to everyone: the request may fail before anyone signs in.
 */
export default function ConnectErrorPage() {
  useTitle('Could not connect the agent');
  const [params] = useSearchParams();
  const code = params.get('error') ?? '';
  const detail = params.get('error_description') ?? '';
  return (
    <div className="signin box">
      <h1>Could not connect the agent</h1>
      <p className="notice error" role="alert">
        {REASONS[code] ?? 'The request to connect the agent is not valid.'} Nothing was shared, and no access
        was given.
      </p>
      <p>
        Start the connection again from your agent. If it keeps failing, remove the server from the agent and
        add it again, so that it registers anew.
      </p>
      {(code !== '' || detail !== '') && (
        <p className="muted small">
          Details: <code>{[code, detail].filter((v) => v !== '').join(': ')}</code>
        </p>
      )}
      <p>
        <Link to="/">Go to the library</Link>
      </p>
    </div>
  );
}
