/**
 * What the Connected agents page shows for an MCP client (SPEC §7d, docs/mcp.md): the endpoint on
 * this app's own origin, and a configuration to paste, with the key sent as a bearer header.
 */

/** `/mcp` on the origin the page was served from (the API and the web app share it). */
export function mcpEndpoint(origin: string): string {
  return `${origin.replace(/\/+$/, '')}/mcp`;
}

/**
 * The `mcpServers` entry that Cursor and most clients speaking Streamable HTTP with headers read.
 * The key is a placeholder unless one is given: the page never has a stored key to fill in.
 */
export function mcpClientConfig(origin: string, key = 'ak_…'): string {
  const entry = { url: mcpEndpoint(origin), headers: { Authorization: `Bearer ${key}` } };
  return JSON.stringify({ mcpServers: { sponge: entry } }, null, 2);
}
