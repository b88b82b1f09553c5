// The sign-in and sign-up pages as the server's options shape them, rendered to markup with the
// options already in the cache (as after `auth.options` answered): what a visitor is offered.
import { QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';
import SignInPage from './sign-in-page.tsx';
import SignUpPage from './sign-up-page.tsx';

type Options = {
  signUp: 'open' | 'closed';
  demo: boolean;
  passwordRules: { minLength: number; maxLength: number };
};

function render(page: React.ReactNode, path: string, options: Options): string {
  // Other rules than the contract's today: the page must show the server's, not a copy of them.
  queryClient.setQueryData(trpc.auth.options.queryKey(), options as RouterOutputs['auth']['options']);
  return renderToStaticMarkup(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[path]}>{page}</MemoryRouter>
    </QueryClientProvider>,
  );
}

/** The attributes of every `<tag …>` in the markup, in order. */
function tags(html: string, tag: string): Array<Record<string, string>> {
  return [...html.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, 'g'))].map((m) =>
    Object.fromEntries([...(m[1] ?? '').matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])),
  );
}

/** The input a label names, through its `for`. */
function inputLabelled(html: string, label: string): Record<string, string> | undefined {
  const id = new RegExp(`<label for="([^"]+)">${label}</label>`).exec(html)?.[1];
  return tags(html, 'input').find((a) => a.id === id);
}

/** The text of the element with that id (no nested tags). */
const textOf = (html: string, id: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1];

const open: Options = { signUp: 'open', demo: false, passwordRules: { minLength: 10, maxLength: 128 } };

afterEach(() => queryClient.clear());

describe('the sign-in page', () => {
  it('has an email and password form that password managers understand', () => {
    const html = render(<SignInPage />, '/signin', open);
    expect(inputLabelled(html, 'Email')).toMatchObject({ type: 'email', autoComplete: 'email' });
    expect(inputLabelled(html, 'Password')).toMatchObject({
      type: 'password',
      autoComplete: 'current-password',
    });
    expect(html).toContain('<button type="submit" class="button primary">Sign in</button>');
  });

  it('offers sign-up when it is open, keeping where the visitor was going', () => {
    const html = render(<SignInPage />, '/signin?next=%2Fdocuments%2Fdoc-1', open);
    expect(tags(html, 'a')).toContainEqual(
      expect.objectContaining({ href: '/signup?next=%2Fdocuments%2Fdoc-1' }),
    );
    expect(html).toContain('Create an account</a>');
  });

  it('offers no sign-up when it is closed, and no demo without DEMO', () => {
    const html = render(<SignInPage />, '/signin', { ...open, signUp: 'closed' });
    expect(html).not.toContain('/signup');
    expect(html).not.toContain('Create an account');
    expect(html).not.toContain('Demo');
  });

  it('shows the demo owners only with DEMO on', () => {
    queryClient.setQueryData(trpc.auth.demoUsers.queryKey(), [{ id: 'user-ada', name: 'Ada Lovelace' }]);
    const html = render(<SignInPage />, '/signin', { ...open, demo: true });
    expect(html).toContain('<h2 id="signin-demo-title">Demo</h2>');
    expect(html).toContain('<button type="button" class="button">Sign in as Ada Lovelace</button>');
  });
});

describe('the sign-up page', () => {
  it('shows the password rules the server states, tied to the new-password input', () => {
    const html = render(<SignUpPage />, '/signup', {
      ...open,
      passwordRules: { minLength: 12, maxLength: 64 },
    });
    const password = inputLabelled(html, 'Password');
    expect(password).toMatchObject({ type: 'password', autoComplete: 'new-password' });
    expect(textOf(html, password?.['aria-describedby'] ?? '-')).toMatch(
      /^At least 12 characters \(at most 64\)\./,
    );
    expect(inputLabelled(html, 'Name')).toMatchObject({ autoComplete: 'name' });
    expect(inputLabelled(html, 'Email')).toMatchObject({ type: 'email', autoComplete: 'email' });
    expect(html).toContain('<button type="submit" class="button primary">Create account</button>');
  });

  it('has no form when sign-up is closed, and says so', () => {
    const html = render(<SignUpPage />, '/signup', { ...open, signUp: 'closed' });
    expect(html).not.toContain('<form');
    expect(html).toContain('This server does not take new accounts.');
    expect(tags(html, 'a')).toContainEqual(expect.objectContaining({ href: '/signin' }));
  });
});
