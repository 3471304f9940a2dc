import { apiBase } from '../api';

/** The screens part 2 of the console fills; until then each says what it will hold and where the data is now. */
export interface PlaceholderScreen {
  path: string;
  name: string;
  holds: string;
  route: string;
}

export const placeholders: readonly PlaceholderScreen[] = [
  { path: '/runs', name: 'Runs', holds: 'the workflow runs with their timelines, approvals, costs and transcripts, and the dispatcher queue', route: '/api/workflow-runs' },
  { path: '/agents', name: 'Agents', holds: 'the agents with their liveness, caps, dispatch pauses, billing and tokens', route: '/api/agents/status' },
  { path: '/costs', name: 'Costs', holds: 'spend against each budget with its burn-down and forecast, and the price table', route: '/api/budgets' },
  { path: '/settings', name: 'Settings', holds: 'webhooks, routing, the governance policy, scheduled jobs and the server itself', route: '/api/settings' },
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
