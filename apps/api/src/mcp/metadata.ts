/**
 * The protected-resource metadata of `/mcp` (RFC 9728), which a 401's `WWW-Authenticate` points
 * at: the resource's URL and how a token is sent. It names no authorization server, since
 * `/mcp` is opened by the owner's API key, made on the app's API-keys page (docs/mcp.md says so).
 */

/** Where the metadata of the resource `<origin>/mcp` lives (RFC 9728 §3.1: inserted before the path). */
export const METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';
/** Clients that do not insert the resource's path look here; the same document. */
export const METADATA_ROOT_PATH = '/.well-known/oauth-protected-resource';

export const MCP_PATH = '/mcp';

/** The metadata document for the endpoint served under `origin`. */
export function protectedResourceMetadata(origin: string): Record<string, unknown> {
  return {
    resource: `${origin}${MCP_PATH}`,
    bearer_methods_supported: ['header'],
    resource_name: 'Sponge library (read-only)',
    resource_documentation: `${origin}/account/api-keys`,
  };
}

/** The challenge of a 401: where the metadata is, and why the token (if any) was refused. */
export function bearerChallenge(origin: string, invalidToken: boolean): string {
  const pointer = `Bearer resource_metadata="${origin}${METADATA_PATH}"`;
  return invalidToken ? `${pointer}, error="invalid_token"` : pointer;
}
