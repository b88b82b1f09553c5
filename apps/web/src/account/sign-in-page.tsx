import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { ActionError, BusyButton, ErrorState, PageLoading } from '../shared/states.tsx';
import { useTitle } from '../shared/use-title.ts';
import { queryClient, trpc } from '../trpc.ts';
import { goNext, isServerNext, safeNext, signInProblems, type SignInProblems } from './account-forms.ts';
import { EmailField, PasswordField } from './credential-fields.tsx';

/**
 * Email and password (`auth.signIn`), a way to sign up when the server takes new accounts, and
 * the demo owners when DEMO is on. The API sets the HttpOnly session cookie; afterwards the page
 * goes on to `?next=` (a signed-out visit to a document comes back to it).
 */
export default function SignInPage() {
  useTitle('Sign in');
  const options = useQuery(trpc.auth.options.queryOptions());
  const me = useQuery(trpc.auth.me.queryOptions());
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const navigate = useNavigate();
  const onSignedIn = async () => {
    // Nothing of the previous user's may linger in the cache.
    queryClient.clear();
    await goNext(next, navigate);
  };

  // Already signed in (a second tab, the back button): the page has nothing to do.
  if (me.data) return isServerNext(next) ? <LeaveFor to={next} /> : <Navigate to={next} replace />;

  const nextQuery = next === '/' ? '' : `?next=${encodeURIComponent(next)}`;
  return (
    <div className="signin box">
      <h1>Sign in</h1>
      <p className="muted">Sponge — your private research library.</p>
      <SignInForm onSignedIn={onSignedIn} />
      {options.data?.signUp === 'open' && (
        <p className="signin-switch">
          New here? <Link to={`/signup${nextQuery}`}>Create an account</Link>
        </p>
      )}
      {options.data?.demo && <DemoOwners onSignedIn={onSignedIn} />}
    </div>
  );
}

function SignInForm({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [shown, setShown] = useState<SignInProblems | null>(null);
  const signIn = useMutation(trpc.auth.signIn.mutationOptions({ onSuccess: onSignedIn }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const wrong = signInProblems({ email, password });
    setShown(wrong);
    if (wrong) return;
    signIn.mutate({ email: email.trim(), password });
  };
  return (
    <form className="account-form" onSubmit={submit} noValidate>
      <EmailField value={email} onValueChange={setEmail} error={shown?.email} />
      <PasswordField which="current" value={password} onValueChange={setPassword} error={shown?.password} />
      <ActionError error={signIn.error} />
      <BusyButton busy={signIn.isPending} type="submit" className="button primary">
        Sign in
      </BusyButton>
    </form>
  );
}

/** Demo sign-in (`auth.login`), offered only when the server runs with DEMO on. */
function DemoOwners({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const users = useQuery(trpc.auth.demoUsers.queryOptions());
  const login = useMutation(trpc.auth.login.mutationOptions({ onSuccess: onSignedIn }));
  return (
    <section className="signin-demo" aria-labelledby="signin-demo-title">
      <h2 id="signin-demo-title">Demo</h2>
      <p className="muted small">
        Or sign in as a demo owner. Each sees their own library and the documents shared with them.
      </p>
      {users.isPending ? (
        <PageLoading />
      ) : users.isError ? (
        <ErrorState
          error={users.error}
          onRetry={() => void users.refetch()}
          title="Could not load the demo owners"
        />
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
      <ActionError error={login.error} />
    </section>
  );
}

/** `<Navigate>` for an address the API answers (an authorization request): a full page load. */
function LeaveFor({ to }: { to: string }) {
  useEffect(() => window.location.replace(to), [to]);
  return <PageLoading />;
}
