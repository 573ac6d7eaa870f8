// The dashboard's entry: the boot call (is there a session?), the router under /app, and the signed-in layout.
import { createContext, StrictMode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { currentSession, HeraldError, heraldFor, setCsrfToken, signOut, type Me, type Session } from './api.ts';
import { AppContext, ErrorNote, Loading, type AppState } from './ui.tsx';
import { Layout } from './layout.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { InvitePage } from './pages/invite.tsx';
import { KeysPage } from './pages/keys.tsx';
import { MembersPage } from './pages/members.tsx';
import { AccountPage } from './pages/account.tsx';
import { ConnectionsPage } from './pages/connections.tsx';
import { PostsPage } from './pages/posts.tsx';
import { ComposerPage } from './pages/composer.tsx';
import { PostPage } from './pages/post.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { areaRoutes } from './areas.ts';
import './styles.css';

const WORKSPACE_KEY = 'herald.workspace';

function SignedIn({ onSignedOut }: { onSignedOut(): void }) {
  const [me, setMe] = useState<Me | undefined>();
  const [error, setError] = useState<unknown>();
  const [workspaceId, setWorkspaceId] = useState<string | undefined>(
    () => localStorage.getItem(WORKSPACE_KEY) ?? undefined,
  );
  const reloadMe = useCallback(async () => {
    try {
      setMe((await heraldFor(undefined).GET('/me')) as Me);
    } catch (caught) {
      // A session that ended elsewhere (sign out everywhere, a password change): back to the sign-in page.
      if (caught instanceof HeraldError && caught.status === 401) onSignedOut();
      else setError(caught);
    }
  }, [onSignedOut]);
  useEffect(() => void reloadMe(), [reloadMe]);
  const workspace = me?.workspaces.find((w) => w.id === workspaceId) ?? me?.workspaces[0];
  const herald = useMemo(() => heraldFor(workspace?.id), [workspace?.id]);
  if (error) return <ErrorNote error={error} />;
  if (!me) return <Loading what="your account" />;
  const state: AppState = {
    me,
    workspace,
    herald,
    selectWorkspace(id) {
      localStorage.setItem(WORKSPACE_KEY, id);
      setWorkspaceId(id);
    },
    reloadMe,
    async signOut() {
      // Signed out on this side even when the session had already ended on the server.
      await signOut().catch(() => undefined);
      onSignedOut();
    },
  };
  return (
    <AppContext.Provider value={state}>
      <Layout />
    </AppContext.Provider>
  );
}

interface SessionState {
  session: Session | null;
  signedIn(session: Session): void;
  signedOut(): void;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside App');
  return state;
}

/** The signed-in pages, or the sign-in page when there is no session. */
function Inside() {
  const { session, signedOut } = useSession();
  return session ? <SignedIn onSignedOut={signedOut} /> : <Navigate to="/signin" replace />;
}

function SignInRoute() {
  const { session, signedIn } = useSession();
  return session ? <Navigate to="/posts" replace /> : <SignInPage onSignedIn={signedIn} />;
}

function InviteRoute() {
  return <InvitePage onSignedIn={useSession().signedIn} />;
}

// One router for the app's life: pages read the session from context, so signing in or out never rebuilds it.
const router = createBrowserRouter(
  [
    { path: '/signin', element: <SignInRoute /> },
    { path: '/invite/:token', element: <InviteRoute /> },
    {
      path: '/',
      element: <Inside />,
      children: [
        { index: true, element: <Navigate to="/posts" replace /> },
        { path: 'posts', element: <PostsPage /> },
        { path: 'posts/new', element: <ComposerPage /> },
        { path: 'posts/:id', element: <PostPage /> },
        { path: 'connections', element: <ConnectionsPage /> },
        { path: 'webhooks', element: <WebhooksPage /> },
        ...areaRoutes,
        { path: 'settings/keys', element: <KeysPage /> },
        { path: 'settings/members', element: <MembersPage /> },
        { path: 'settings/account', element: <AccountPage /> },
        { path: '*', element: <p>No page here. Pick one from the menu.</p> },
      ],
    },
  ],
  { basename: '/app' },
);

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    currentSession().then((found) => {
      if (found) setCsrfToken(found.csrf_token);
      setSession(found ?? null);
    }, setError);
  }, []);
  const state = useMemo<SessionState | undefined>(
    () =>
      session === undefined
        ? undefined
        : {
            session,
            signedIn(found) {
              setCsrfToken(found.csrf_token);
              setSession(found);
            },
            signedOut: () => setSession(null),
          },
    [session],
  );
  if (error) return <ErrorNote error={error} />;
  if (!state) return <Loading what="Herald" />;
  return (
    <SessionContext.Provider value={state}>
      <RouterProvider router={router} />
    </SessionContext.Provider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
