import { apiBase } from '../api';

/** The screens part 2 of the console fills; until then each says what it will hold and where the data is now. */
export interface PlaceholderScreen {
  path: string;
  name: string;
  holds: string;
  route: string;
}

export const placeholders: readonly PlaceholderScreen[] = [
  { path: '/audit', name: 'Audit', holds: 'the audit log, searchable, with each entity’s history and its state at any moment', route: '/api/audit' },
  { path: '/snapshots', name: 'Snapshots', holds: 'the full-state snapshots, their downloads, and restores previewed before they run', route: '/api/snapshots' },
];

export function Placeholder({ screen }: { path: string; screen: PlaceholderScreen }) {
  return (
    <section aria-labelledby="screen-title" class="screen placeholder">
      <h1 id="screen-title">{screen.name}</h1>
      <p>
        This screen will show {screen.holds}. Until it does, the data is at{' '}
        <a href={`${apiBase()}${screen.route}`} rel="noreferrer" target="_blank">
          GET {screen.route}
        </a>
        .
      </p>
    </section>
  );
}

export function NotFound(_props: { default: boolean }) {
  return (
    <section aria-labelledby="screen-title" class="screen">
      <h1 id="screen-title">Not found</h1>
      <p>
        The console has no screen at this address. <a href="/">Go to the Inbox</a>.
      </p>
    </section>
  );
}
