import { useEffect } from 'preact/hooks';
import { LocationProvider, Router, useLocation } from 'preact-iso';
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
import { NotFound, Placeholder, placeholders } from './screens/placeholder';
import { SignIn } from './screens/sign-in';
import { TaskPage, taskRead } from './screens/task-page';
import { accessToken, signInShown, signOut } from './session';

/**
 * The first read of the screen at `url`, for main.tsx to start before the shell renders (the
 * screens' own useQuery of the same key then finds it in flight). Each screen names its read.
 */
export function screenRead(url: URL): { key: string; topics: readonly Topic[]; load: () => Promise<unknown>; first?: () => Promise<unknown> } | undefined {
  const task = /^\/tasks\/([^/]+)$/.exec(url.pathname);
  if (url.pathname === '/') return { key: INBOX_KEY, topics: inboxTopics, load: loadInbox };
  if (url.pathname === '/board') return boardRead(Object.fromEntries(url.searchParams));
  if (task) return taskRead(decodeURIComponent(task[1]!));
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
          {placeholders.map((p) => (
            <Placeholder key={p.path} path={p.path} screen={p} />
          ))}
          <NotFound default />
        </Router>
      </main>
      <CommandPalette />
      <ShortcutHelp />
    </>
  );
}
