import { useSignal } from '@preact/signals';
import { runActions, type RunAction } from '../runs-data';

/** What the runs table and the run page show of a run's cost and of its buttons. */
const labels: Record<RunAction, string> = { start: 'Start', cancel: 'Cancel', retry: 'Retry' };
const done: Record<RunAction, string> = { start: 'dispatched now', cancel: 'cancelled', retry: 'back in the queue' };

/**
 * The buttons the API allows on a run (the server names them: `actions`), in one order. Each says
 * what happened through `onDone`, or the server's refusal through `onProblem`.
 */
export function RunActionButtons({
  run,
  onDone,
  onProblem,
}: {
  run: { id: string; actions: readonly RunAction[] };
  onDone(message: string): void;
  onProblem(message: string | undefined): void;
}) {
  const busy = useSignal(false);
  const act = async (action: RunAction) => {
    busy.value = true;
    onProblem(undefined);
    try {
      await runActions[action](run.id);
      onDone(`Run ${run.id.slice(0, 8)}: ${done[action]}.`);
    } catch (err) {
      onProblem(`${labels[action]} run ${run.id.slice(0, 8)}: ${(err as Error).message}`);
    } finally {
      busy.value = false;
    }
  };
  if (run.actions.length === 0) return null;
  return (
    <div class="actions">
      {(['start', 'cancel', 'retry'] as const)
        .filter((a) => run.actions.includes(a))
        .map((a) => (
          <button
            key={a}
            type="button"
            class={a === 'cancel' ? 'danger' : a === 'start' ? 'primary' : undefined}
            disabled={busy.value}
            onClick={() => void act(a)}
          >
            {labels[a]}
          </button>
        ))}
    </div>
  );
}

/** A cost as the run page and the table show it: the amount, and where it comes from when it is not the agent's own report. */
export function costText(cost: {
  cost_estimate: number | null;
  currency: string | null;
  price_source: string;
  billing: string | null;
}): string {
  if (cost.price_source === 'unpriced') return 'unpriced';
  if (cost.cost_estimate === null) return '—';
  const amount = `${cost.currency && cost.currency !== 'USD' ? `${cost.currency} ` : '$'}${cost.cost_estimate.toFixed(cost.cost_estimate < 1 ? 4 : 2)}`;
  const notes = [
    cost.price_source === 'table' ? 'price table' : cost.price_source === 'runtime' ? 'runtime' : '',
    cost.billing === 'subscription' ? 'shadow' : '',
  ].filter(Boolean);
  return notes.length ? `${amount} (${notes.join(', ')})` : amount;
}

/** How long ago an instant was, in the largest whole unit. */
export function ageText(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/** A duration in ms as "1 h 5 min", "3 min 20 s", "12 s". */
export function durationText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const m = Math.floor(s / 60);
  if (m < 1440) return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
  return `${Math.floor(m / 1440)} d${Math.floor((m % 1440) / 60) ? ` ${Math.floor((m % 1440) / 60)} h` : ''}`;
}
