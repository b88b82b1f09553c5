import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { AppShell, RequireSignIn } from './app-shell.tsx';
import { NotFoundPage } from './shared/not-found-page.tsx';
import { PageLoading } from './shared/states.tsx';

// One chunk per page: the Memory panel route loads only what it needs (no document text, no menu).
const SignInPage = lazy(() => import('./account/sign-in-page.tsx'));
const SignUpPage = lazy(() => import('./account/sign-up-page.tsx'));
const ConnectedAgentsPage = lazy(() => import('./account/connected-agents-page.tsx'));
const LibraryPage = lazy(() => import('./library/library-page.tsx'));
const DocumentPage = lazy(() => import('./document/document-page.tsx'));
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
          <Route
            path="/documents/:id"
            element={
              <Lazy>
                <DocumentPage />
              </Lazy>
            }
          />
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
