import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { errorCode, errorIssues } from '../shared/errors.ts';
import { FormField } from '../shared/form-field.tsx';
import { ActionError, BusyButton, ErrorState, PageLoading } from '../shared/states.tsx';
import { useTitle } from '../shared/use-title.ts';
import { queryClient, trpc } from '../trpc.ts';
import {
  goNext,
  issuesByField,
  passwordRulesText,
  safeNext,
  signUpProblems,
  type PasswordRules,
  type SignUpProblems,
} from './account-forms.ts';
import { EmailField, PasswordField } from './credential-fields.tsx';

const FIELDS = ['name', 'email', 'password'] as const;

/**
 * A new account (`auth.signUp`): name, email and a password under the rules the server states.
 * With SIGNUP=closed there is no form, only where to turn instead.
 */
export default function SignUpPage() {
  useTitle('Create an account');
  const options = useQuery(trpc.auth.options.queryOptions());
  const me = useQuery(trpc.auth.me.queryOptions());
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const signInPath = next === '/' ? '/signin' : `/signin?next=${encodeURIComponent(next)}`;

  if (me.data) return <Navigate to={next} replace />;
  return (
    <div className="signin box">
      <h1>Create an account</h1>
      {options.isPending ? (
        <PageLoading />
      ) : options.isError ? (
        <ErrorState error={options.error} onRetry={() => void options.refetch()} />
      ) : options.data.signUp === 'closed' ? (
        <p className="notice">
          This server does not take new accounts. Ask the person who runs it for one, then{' '}
          <Link to={signInPath}>sign in</Link>.
        </p>
      ) : (
        <SignUpForm rules={options.data.passwordRules} next={next} signInPath={signInPath} />
      )}
    </div>
  );
}

function SignUpForm({ rules, next, signInPath }: { rules: PasswordRules; next: string; signInPath: string }) {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [shown, setShown] = useState<SignUpProblems | null>(null);
  const signUp = useMutation(
    trpc.auth.signUp.mutationOptions({
      onSuccess: async () => {
        // Signed in as the new account: nothing of a previous visitor may linger in the cache.
        queryClient.clear();
        await goNext(next, navigate);
      },
    }),
  );
  const fromServer = signUp.isError ? issuesByField(errorIssues(signUp.error), FIELDS) : {};
  const problems = { ...fromServer, ...shown };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const wrong = signUpProblems({ name, email, password }, rules);
    setShown(wrong);
    if (wrong) return;
    signUp.reset();
    signUp.mutate({ name: name.trim(), email: email.trim(), password });
  };
  return (
    <form className="account-form" onSubmit={submit} noValidate>
      <FormField
        label="Name"
        name="name"
        autoComplete="name"
        value={name}
        onValueChange={setName}
        error={problems.name}
      />
      <EmailField value={email} onValueChange={setEmail} error={problems.email} />
      <PasswordField
        which="new"
        value={password}
        onValueChange={setPassword}
        hint={passwordRulesText(rules)}
        error={problems.password}
      />
      <ActionError error={signUp.error}>
        {errorCode(signUp.error) === 'CONFLICT' && (
          <>
            {' '}
            <Link to={signInPath}>Go to sign in</Link>
          </>
        )}
      </ActionError>
      <BusyButton busy={signUp.isPending} type="submit" className="button primary">
        Create account
      </BusyButton>
      <p className="signin-switch">
        Have an account? <Link to={signInPath}>Sign in</Link>
      </p>
    </form>
  );
}
