import { useEffect } from 'preact/hooks';
import { lazy, LocationProvider, Router, useLocation } from 'preact-iso';
import { startLive, stopLive } from './live';
import { CommandPalette } from './parts/command-palette';
import { LiveStatus } from './parts/live-status';
import { MainNav } from './parts/main-nav';
import { ShortcutHelp, useShortcuts } from './parts/shortcuts';
import { ThemeToggle } from './parts/theme-toggle';
import { INBOX_KEY, inboxTopics, loadInbox } from './inbox-data';
import { clearQueries, type Topic } from './queries';
import { BoardScreen, boardRead } from './screens/board';
import { InboxScreen } from './screens/inbox';
import { NotFound } from './screens/not-found';
import { SignIn } from './screens/sign-in';
import { TaskPage, taskRead } from './screens/task-page';
import { accessToken, signInShown, signOut } from './session';
import { costsRead } from './costs-read';

const CostsScreen = lazy(() => import('./screens/costs').then((m) => m.CostsScreen));

const AgentsScreen = lazy(() => import('./screens/agents').then((m) => m.AgentsScreen));
const SettingsScreen = lazy(() => import('./screens/settings').then((m) => m.SettingsScreen));
// screens an operator opens less often: each a chunk of its own, fetched on the first visit (the
// Runs screen and the run page share one: fewer chunks split from the entry, a smaller first download)
const RunsScreen = lazy(() => import('./screens/runs').then((m) => m.RunsScreen));
const RunPage = lazy(() => import('./screens/runs').then((m) => m.RunPage));
const SessionPage = lazy(() => import('./screens/session-page').then((m) => m.SessionPage));

const AuditScreen = lazy(() => import('./screens/audit').then((m) => m.AuditScreen));
const SnapshotsScreen = lazy(() => import('./screens/snapshots').then((m) => m.SnapshotsScreen));

/**
 * The first read of the screen at `url`, for main.tsx to start before the shell renders (the
 * screens' own useQuery of the same key then finds it in flight). Each screen names its read.
 */
export function screenRead(
  url: URL,
): { key: string; topics: readonly Topic[]; load: () => Promise<unknown>; first?: () => Promise<unknown> } | undefined {
  const task = /^\/tasks\/([^/]+)$/.exec(url.pathname);
  if (url.pathname === '/') return { key: INBOX_KEY, topics: inboxTopics, load: loadInbox };
  if (url.pathname === '/board') return boardRead(Object.fromEntries(url.searchParams));
  if (task) return taskRead(decodeURIComponent(task[1]!));
  if (url.pathname === '/costs') return costsRead();
  return undefined;
}

/** The console: sign-in when the server asks for a token, else the shell around the screen of the URL. */
export function App() {
  if (signInShown.value) return <SignIn />;
  return (
    <LocationProvider>
      <Shell />
    </LocationProvider>
  );
}

function Shell() {
  const location = useLocation();
  useEffect(() => {
    startLive();
    return stopLive;
  }, []);
  useShortcuts(location.route);
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top-bar">
        <span class="brand">Fleet console</span>
        <MainNav />
        <div class="top-tools">
          <LiveStatus />
          <ThemeToggle />
          {accessToken.value ? (
            <button
              type="button"
              class="quiet"
              onClick={() => {
                clearQueries();
                signOut();
              }}
            >
              Sign out
            </button>
          ) : null}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Router>
          <InboxScreen path="/" />
          <BoardScreen path="/board" />
          <TaskPage path="/tasks/:id" />
          <AgentsScreen path="/agents" />
          <SettingsScreen path="/settings" />
          <RunsScreen path="/runs" />
          <RunPage path="/runs/:id" />
          <CostsScreen path="/costs" />
          <AuditScreen path="/audit" />
          <SnapshotsScreen path="/snapshots" />
          <SessionPage path="/sessions/:id" />
          <NotFound default />
        </Router>
      </main>
      <CommandPalette />
      <ShortcutHelp />
    </>
  );
}
