import { useSignal } from '@preact/signals';
import { Problem } from './problem';

/**
 * One card's in-place actions (the Agents and Settings screens): while one runs its buttons are
 * disabled; what it did is said in the card's status line, what went wrong in its alert. `work`
 * answers the sentence to say (or nothing); `after` runs once it succeeded (the refetch of what it
 * changed, so the card shows the server's state at once rather than after the stream's turn).
 */
export function useInPlaceAction() {
  const busy = useSignal(false);
  const problem = useSignal<string | undefined>(undefined);
  const said = useSignal<string | undefined>(undefined);
  const run = async (work: () => Promise<string | void>, after?: () => void): Promise<boolean> => {
    busy.value = true;
    problem.value = undefined;
    said.value = undefined;
    try {
      said.value = (await work()) ?? undefined;
      after?.();
      return true;
    } catch (err) {
      problem.value = (err as Error).message;
      return false;
    } finally {
      busy.value = false;
    }
  };
  return { busy, problem, said, run };
}

/** The status line and alert of an in-place action, in that order. */
export function ActionOutcome({ action }: { action: ReturnType<typeof useInPlaceAction> }) {
  return (
    <>
      <p role="status" class="notice">
        {action.said.value ?? ''}
      </p>
      <Problem text={action.problem.value} />
    </>
  );
}

/**
 * Copies a secret shown once (an agent token, a webhook's signing secret, a line holding one) with
 * navigator.clipboard; says "<what> copied." in the outcome's status line, or how to copy it by hand.
 */
export function copyToClipboard(action: ReturnType<typeof useInPlaceAction>, text: string, what: string): Promise<boolean> {
  return action.run(async () => {
    try {
      await navigator.clipboard.writeText(text);
      return `${what} copied.`;
    } catch {
      return `The browser refused the clipboard: select the ${what.toLowerCase()} and copy it.`;
    }
  });
}
