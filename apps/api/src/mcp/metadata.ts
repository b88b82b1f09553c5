/**
 * The protected-resource metadata of `/mcp` (RFC 9728), which a 401's `WWW-Authenticate` points
 * at: the resource's URL, how a token is sent, and the authorization server an MCP client signs
 * the owner in with (./oauth.ts). An API key, made on the app's Connected agents page, needs none
 * of it.
 */

/** Where the metadata of the resource `<origin>/mcp` lives (RFC 9728 §3.1: inserted before the path). */
export const METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';
/** Clients that do not insert the resource's path look here; the same document. */
export const METADATA_ROOT_PATH = '/.well-known/oauth-protected-resource';

export const MCP_PATH = '/mcp';

/** The metadata document for the endpoint served under `origin`, with its authorization server. */
export function protectedResourceMetadata(
  origin: string,
  oauth: { issuer: string; scope: string } | null,
): Record<string, unknown> {
  return {
    resource: `${origin}${MCP_PATH}`,
    ...(oauth ? { authorization_servers: [oauth.issuer], scopes_supported: [oauth.scope] } : {}),
    bearer_methods_supported: ['header'],
    resource_name: 'Sponge library (read-only)',
    resource_documentation: `${origin}/account/agents`,
  };
}

/** The challenge of a 401: where the metadata is, and why the token (if any) was refused. */
export function bearerChallenge(origin: string, invalidToken: boolean): string {
  const pointer = `Bearer resource_metadata="${origin}${METADATA_PATH}"`;
  return invalidToken ? `${pointer}, error="invalid_token"` : pointer;
}
