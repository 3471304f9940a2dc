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
    // the default cache mode, so the page's preload of it answers (the file is served no-cache, so it is revalidated all the same)
    const response = await fetch('/config.json');
    if (!response.ok) return { apiBaseUrl: '' };
    const parsed = (await response.json()) as Partial<ConsoleConfig>;
    return { apiBaseUrl: typeof parsed.apiBaseUrl === 'string' ? parsed.apiBaseUrl.replace(/\/+$/, '') : '' };
  } catch {
    return { apiBaseUrl: '' };
  }
}
