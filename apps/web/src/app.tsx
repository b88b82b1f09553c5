import { usePrefetchQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Navigate, Route, Routes, useParams } from 'react-router';
import { AppShell, RequireSignIn } from './app-shell.tsx';
import { NotFoundPage } from './shared/not-found-page.tsx';
import { ErrorState, PageLoading } from './shared/states.tsx';
import { trpc } from './trpc.ts';

// One chunk per page: the Memory panel route loads only what it needs (no document text, no menu).
const SignInPage = lazy(() => import('./account/sign-in-page.tsx'));
const SignUpPage = lazy(() => import('./account/sign-up-page.tsx'));
const ConnectedAgentsPage = lazy(() => import('./account/connected-agents-page.tsx'));
const LibraryPage = lazy(() => import('./library/library-page.tsx'));
const MemoryPage = lazy(() => import('./memory-panel/memory-panel-page.tsx'));
const ReviewHistoryPage = lazy(() => import('./review/review-history-page.tsx'));
const ProfilesPage = lazy(() => import('./review/profiles-page.tsx'));
const ConnectPage = lazy(() => import('./account/connect-page.tsx'));
const ConnectErrorPage = lazy(() => import('./account/connect-error-page.tsx'));
const InvitePage = lazy(() => import('./account/invite-page.tsx'));

export function App() {
  return (
    <Routes>
      <Route element={<AppShell />}>
        <Route
          path="/signin"
          element={
            <Lazy>
              <SignInPage />
            </Lazy>
          }
        />
        <Route
          path="/signup"
          element={
            <Lazy>
              <SignUpPage />
            </Lazy>
          }
        />
        <Route
          path="/connect/error"
          element={
            <Lazy>
              <ConnectErrorPage />
            </Lazy>
          }
        />
        <Route element={<RequireSignIn />}>
          <Route
            index
            element={
              <Lazy>
                <LibraryPage />
              </Lazy>
            }
          />
          <Route path="/documents/:id" element={<DocumentRoute />} />
          <Route
            path="/documents/:id/memory"
            element={
              <Lazy>
                <MemoryPage />
              </Lazy>
            }
          />
          <Route
            path="/documents/:id/reviews"
            element={
              <Lazy>
                <ReviewHistoryPage />
              </Lazy>
            }
          />
          <Route
            path="/documents/:id/profiles"
            element={
              <Lazy>
                <ProfilesPage />
              </Lazy>
            }
          />
          <Route
            path="/account/agents"
            element={
              <Lazy>
                <ConnectedAgentsPage />
              </Lazy>
            }
          />
          {/* The API keys page became part of Connected agents: old links and bookmarks land there. */}
          <Route path="/account/api-keys" element={<Navigate to="/account/agents" replace />} />
          <Route
            path="/account/connect"
            element={
              <Lazy>
                <ConnectPage />
              </Lazy>
            }
          />
          <Route
            path="/invite/:token"
            element={
              <Lazy>
                <InvitePage />
              </Lazy>
            }
          />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Route>
    </Routes>
  );
}

function Lazy({ children }: { children: React.ReactNode }) {
  return <Suspense fallback={<PageLoading />}>{children}</Suspense>;
}

let loadedDocumentPage: React.ComponentType | null = null;

/**
 * The document page, shown the moment its code is there, with its text asked for meanwhile. Not
 * `lazy`: React shows a suspended page no sooner than 300 ms after its placeholder, and a
 * citation into a long document should open within a second (SPEC §6d).
 */
function DocumentRoute() {
  const { id: documentId = '' } = useParams();
  usePrefetchQuery(trpc.documents.get.queryOptions({ documentId }));
  const [loaded, setLoaded] = useState<{ Page: React.ComponentType } | { error: unknown } | null>(
    loadedDocumentPage && { Page: loadedDocumentPage },
  );
  useEffect(() => {
    if (loaded) return;
    import('./document/document-page.tsx').then(
      ({ default: Page }) => {
        loadedDocumentPage = Page;
        setLoaded({ Page });
      },
      (error: unknown) => setLoaded({ error }),
    );
  }, [loaded]);
  if (!loaded) return <PageLoading />;
  if ('error' in loaded) return <ErrorState error={loaded.error} onRetry={() => location.reload()} />;
  return <loaded.Page />;
}
