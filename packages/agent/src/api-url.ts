/** The API's tRPC endpoint for a base URL given with or without `/trpc` (SPONGE_API_URL). */
export function trpcUrl(url: string): string {
  const u = new URL(url);
  if (!u.pathname.replace(/\/+$/, '').endsWith('/trpc'))
    u.pathname = `${u.pathname.replace(/\/+$/, '')}/trpc`;
  return u.toString().replace(/\/+$/, '');
}
