import { render } from 'preact';
import { connectApi } from './api';
import { App, screenRead } from './app';
import { loadConsoleConfig } from './config';
import { prefetch } from './queries';
import { applyStoredTheme } from './parts/theme-toggle';
import './styles.css';

applyStoredTheme();
const config = await loadConsoleConfig();
connectApi(config.apiBaseUrl);
/**
 * How long the first render waits for the screen's first answer: one style, layout and paint of the
 * shell with the screen's content, rather than one of the shell and another once the answer lands
 * (the board's first screenful comes in a few tens of ms).
 */
const FIRST_ANSWER_WAIT_MS = 150;

// the screen's own read goes out before anything else; the shell renders with its answer, or without it once the wait is over
const read = screenRead(new URL(location.href));
if (read) {
  const answered = prefetch(read.key, read.topics, read.load, read.first);
  await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, FIRST_ANSWER_WAIT_MS))]);
}
render(<App />, document.getElementById('app')!);
