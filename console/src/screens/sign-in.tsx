import { useSignal } from '@preact/signals';
import { apiBase } from '../api';
import { isAgentToken, keepToken } from '../session';

/**
 * Shown when the server asks for a token (DASHBOARD_AUTH_TOKEN is set). The token is checked with
 * one request before it is kept; an agent token is refused here, since the console acts as the operator.
 */
export function SignIn() {
  const problem = useSignal<string | undefined>(undefined);
  const busy = useSignal(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const token = String(data.get('token') ?? '').trim();
    const remember = data.get('remember') === 'on';
    if (!token) {
      problem.value = 'Enter the access token.';
      return;
    }
    if (isAgentToken(token)) {
      problem.value =
        'This is an agent token. The console is the operator’s: sign in with the server’s access token (DASHBOARD_AUTH_TOKEN).';
      return;
    }
    busy.value = true;
    try {
      const response = await fetch(`${apiBase()}/api/projects`, {
        headers: { accept: 'application/json', authorization: `Bearer ${token}` },
      });
      if (response.status === 401) problem.value = 'That access token was refused.';
      else if (response.status === 403)
        problem.value = 'This token may not act as the operator; the console needs the operator’s access token.';
      else if (!response.ok) problem.value = `The server answered ${response.status}; try again.`;
      else keepToken(token, remember);
    } catch {
      problem.value = 'The server did not answer.';
    } finally {
      busy.value = false;
    }
  };

  return (
    <main id="main" class="sign-in">
      <form aria-labelledby="sign-in-title" onSubmit={submit} class="card stack">
        <h1 id="sign-in-title">Sign in</h1>
        <p>This server asks for its access token.</p>
        <label class="field">
          <span>Access token</span>
          <input
            name="token"
            type="password"
            autocomplete="current-password"
            required
            aria-describedby={problem.value ? 'sign-in-problem' : undefined}
          />
        </label>
        <label class="check">
          <input name="remember" type="checkbox" /> Remember on this device
        </label>
        <button type="submit" class="primary" disabled={busy.value}>
          Sign in
        </button>
        <p id="sign-in-problem" role="alert" class="problem">
          {problem.value ?? ''}
        </p>
      </form>
    </main>
  );
}
