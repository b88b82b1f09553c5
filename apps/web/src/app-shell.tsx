import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation } from 'react-router';
import { AccountMenu } from './account/account-menu.tsx';
import { ErrorState, PageLoading } from './shared/states.tsx';
import { trpc } from './trpc.ts';

/** Header, navigation and the main landmark around every page. */
export function AppShell() {
  const me = useQuery(trpc.auth.me.queryOptions());
  const { pathname } = useLocation();
  const mainRef = useRef<HTMLElement>(null);
  const firstRender = useRef(true);

  // After a client-side navigation, start keyboard and screen-reader users at the new page.
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    mainRef.current?.focus();
  }, [pathname]);

  const user = me.data ?? null;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <Link className="brand" to="/">
          Sponge
        </Link>
        {user && (
          <nav className="site-nav" aria-label="Main">
            <ul>
              <li>
                <NavLink to="/" end>
                  Library
                </NavLink>
              </li>
            </ul>
          </nav>
        )}
        {user && <AccountMenu user={user} />}
      </header>
      <main id="main" ref={mainRef} tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}

/** Pages for a signed-in user; anyone else goes to the sign-in page and comes back after. */
export function RequireSignIn() {
  const me = useQuery(trpc.auth.me.queryOptions());
  const location = useLocation();
  if (me.isPending) return <PageLoading />;
  if (me.isError) return <ErrorState error={me.error} onRetry={() => void me.refetch()} />;
  if (!me.data) {
    const next = location.pathname + location.search;
    return <Navigate to={next === '/' ? '/signin' : `/signin?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}
