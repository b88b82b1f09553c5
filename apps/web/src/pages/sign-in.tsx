import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import { ErrorState, PageLoading } from '../components/states.tsx';
import { errorMessage } from '../lib/errors.ts';
import { useTitle } from '../lib/use-title.ts';
import { queryClient, trpc } from '../trpc.ts';

/** Demo owner picker: the API sets the HttpOnly session cookie on `auth.login`. */
export default function SignInPage() {
  useTitle('Sign in');
  const users = useQuery(trpc.auth.demoUsers.queryOptions());
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const login = useMutation(
    trpc.auth.login.mutationOptions({
      onSuccess: async () => {
        // Nothing of the previous user's may linger in the cache.
        queryClient.clear();
        await navigate(safeNext(params.get('next')), { replace: true });
      },
    }),
  );

  return (
    <div className="signin box">
      <h1>Sign in</h1>
      <p className="muted">
        Choose a demo owner. Each owner sees their own library and the documents shared with them.
      </p>
      {users.isPending ? (
        <PageLoading />
      ) : users.isError ? (
        <ErrorState
          error={users.error}
          onRetry={() => void users.refetch()}
          title="Could not load the demo owners"
        />
      ) : users.data.length === 0 ? (
        <p className="notice">There are no demo owners. Start the API with DEMO on.</p>
      ) : (
        <ul>
          {users.data.map((user) => (
            <li key={user.id}>
              <button
                type="button"
                className="button"
                disabled={login.isPending}
                onClick={() => login.mutate({ userId: user.id })}
              >
                Sign in as {user.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      {login.isError && (
        <p className="notice error" role="alert" style={{ marginTop: '1rem' }}>
          {errorMessage(login.error)}
        </p>
      )}
    </div>
  );
}

/** Only a path of this site, never another origin. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}
