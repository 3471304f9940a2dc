import { signal } from '@preact/signals';

/**
 * The operator's access token (DASHBOARD_AUTH_TOKEN) as this browser keeps it: in sessionStorage,
 * or in localStorage when "Remember on this device" was ticked. It travels only in the
 * Authorization header, never in a URL. `signInShown` turns true when the server answers 401 to
 * anything, and the shell then shows the sign-in form instead of the screen.
 */
const KEY = 'fleet-console.token';

function storedToken(): string | null {
  try {
    return sessionStorage.getItem(KEY) ?? localStorage.getItem(KEY);
  } catch {
    return null; // storage refused (a privacy mode): the operator signs in again per page load
  }
}

export const accessToken = signal<string | null>(storedToken());
export const signInShown = signal(false);

/** Agent tokens (`fta_…`, minted by POST /api/agent-tokens) are for agents, not for this console. */
export const isAgentToken = (value: string) => value.startsWith('fta_');

export function keepToken(value: string, remember: boolean): void {
  forgetToken();
  try {
    (remember ? localStorage : sessionStorage).setItem(KEY, value);
  } catch {
    // kept in memory only
  }
  accessToken.value = value;
  signInShown.value = false;
}

function forgetToken(): void {
  try {
    sessionStorage.removeItem(KEY);
    localStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
}

export function signOut(): void {
  forgetToken();
  accessToken.value = null;
  signInShown.value = true;
}

/** A 401 anywhere: the token is gone or wrong, so it is forgotten and sign-in shown. */
export function sessionRefused(): void {
  forgetToken();
  accessToken.value = null;
  signInShown.value = true;
}

export const authorizationHeader = (): Record<string, string> =>
  accessToken.value ? { authorization: `Bearer ${accessToken.value}` } : {};
