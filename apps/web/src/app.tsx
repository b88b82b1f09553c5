import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { AppShell, RequireSignIn } from './components/app-shell.tsx';
import { PageLoading } from './components/states.tsx';
import { NotFoundPage } from './pages/not-found.tsx';

// One chunk per page: the Memory panel route loads only what it needs (no document text, no menu).
const SignInPage = lazy(() => import('./pages/sign-in.tsx'));
const SignUpPage = lazy(() => import('./pages/sign-up.tsx'));
const ConnectedAgentsPage = lazy(() => import('./pages/connected-agents.tsx'));
const LibraryPage = lazy(() => import('./pages/library.tsx'));
const DocumentPage = lazy(() => import('./pages/document.tsx'));
const MemoryPage = lazy(() => import('./pages/memory.tsx'));
const ReviewHistoryPage = lazy(() => import('./pages/review-history.tsx'));
const ProfilesPage = lazy(() => import('./pages/profiles.tsx'));
const ConnectPage = lazy(() => import('./pages/connect.tsx'));
const ConnectErrorPage = lazy(() => import('./pages/connect-error.tsx'));
const InvitePage = lazy(() => import('./pages/invite.tsx'));

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
