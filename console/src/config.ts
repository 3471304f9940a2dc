/**
 * The runtime configuration: config.json beside index.html, written by the build and editable where
 * the console is hosted apart from the API (docs/console.md). An empty or missing apiBaseUrl is
 * the console's own origin.
 */
export interface ConsoleConfig {
  apiBaseUrl: string;
}

export async function loadConsoleConfig(): Promise<ConsoleConfig> {
  try {
    const response = await fetch('/config.json', { cache: 'no-cache' });
    if (!response.ok) return { apiBaseUrl: '' };
    const parsed = (await response.json()) as Partial<ConsoleConfig>;
    return { apiBaseUrl: typeof parsed.apiBaseUrl === 'string' ? parsed.apiBaseUrl.replace(/\/+$/, '') : '' };
  } catch {
    return { apiBaseUrl: '' };
  }
}
