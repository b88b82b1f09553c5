import type { AppRouter } from '@sponge/api';
import { QueryCache, QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { errorCode } from './shared/errors.ts';

export type { RouterOutputs } from '@sponge/api';

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({
    // A session cookie that lapsed mid-visit: ask `auth.me` again, and the guard sends the
    // user to the sign-in page.
    onError: (error, query) => {
      if (errorCode(error) === 'UNAUTHORIZED' && !isMeQuery(query.queryKey)) {
        void queryClient.invalidateQueries({ queryKey: trpc.auth.me.queryKey() });
      }
    },
  }),
  defaultOptions: {
    queries: {
      // A 4xx (not found, unauthorised, bad input) will not heal by asking again.
      retry: (failures, error) => {
        const code = errorCode(error);
        return code === null && failures < 2;
      },
      refetchOnWindowFocus: true,
    },
  },
});

// The server refuses batches over its maxBatchSize (10); a document page asks for one transcript
// per run, so split batches here or a document with many runs loses every transcript.
// Subscriptions (`chat.events`, SPEC §7c) go over Server-Sent Events, same origin, with the cookie.
const trpcClient = createTRPCClient<AppRouter>({
  links: [
    splitLink({
      condition: (op) => op.type === 'subscription',
      true: httpSubscriptionLink({ url: '/trpc' }),
      false: httpBatchLink({ url: '/trpc', maxItems: 10 }),
    }),
  ],
});

export const trpc = createTRPCOptionsProxy<AppRouter>({ client: trpcClient, queryClient });

function isMeQuery(key: readonly unknown[]): boolean {
  const path = key[0];
  return Array.isArray(path) && path[0] === 'auth' && path[1] === 'me';
}
