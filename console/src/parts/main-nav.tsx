import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { INBOX_KEY, inboxTopics, loadInbox } from '../inbox-data';
import { useQuery } from '../queries';

/** The screens, in the order an operator's day goes; the Inbox link carries how many items wait. */
export const screens = [
  { path: '/', name: 'Inbox' },
  { path: '/board', name: 'Board' },
  { path: '/runs', name: 'Runs' },
  { path: '/agents', name: 'Agents' },
  { path: '/costs', name: 'Costs' },
  { path: '/audit', name: 'Audit' },
  { path: '/snapshots', name: 'Snapshots' },
  { path: '/settings', name: 'Settings' },
] as const;

const BASE_TITLE = 'Fleet console';
/**
 * The count beside "Inbox" on every screen refetches at most this often while events keep coming:
 * each answer is a whole inbox (the doctor's report among it), and a screen's own query already
 * spends the page's one request a second. On the Inbox screen the list itself refetches every second.
 * A background query: it waits for the screen's own reads, so the screen shows first.
 */
export const INBOX_COUNT_SPACING_MS = 30_000;

export function MainNav() {
  const inbox = useQuery(INBOX_KEY, inboxTopics, loadInbox, { spacingMs: INBOX_COUNT_SPACING_MS, background: true });
  const waiting = inbox.data.value?.count ?? 0;
  useEffect(() => {
    document.title = waiting > 0 ? `(${waiting}) ${BASE_TITLE}` : BASE_TITLE;
  }, [waiting]);
  const here = useLocation().path;
  return (
    <nav aria-label="Main" class="main-nav">
      <ul>
        {screens.map((s) => {
          const current = s.path === '/' ? here === '/' : here === s.path || here.startsWith(`${s.path}/`);
          return (
            <li key={s.path}>
              <a href={s.path} aria-current={current ? 'page' : undefined}>
                {s.name}
                {s.path === '/' && waiting > 0 ? (
                  <span class="badge">
                    {' '}
                    {waiting}
                    <span class="visually-hidden"> waiting</span>
                  </span>
                ) : null}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
