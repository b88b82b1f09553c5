/**
 * The API's tRPC endpoint for a base URL given with or without `/trpc` and trailing slashes
 * (SPONGE_API_URL): the one place the runtime, its health check and the tools build it.
 *
 * @example trpcUrl('http://127.0.0.1:3000/') // 'http://127.0.0.1:3000/trpc'
 */
export function trpcUrl(url: string): string {
  const u = new URL(url);
  // tRPC's links append `/<procedure>` to the whole string, which a query or fragment would precede.
  if (u.search !== '' || u.hash !== '')
    throw new TypeError(`the API's URL takes no query or fragment: ${url}`);
  const path = u.pathname.replace(/\/+$/, '');
  u.pathname = path.endsWith('/trpc') ? path : `${path}/trpc`;
  return u.toString();
}
