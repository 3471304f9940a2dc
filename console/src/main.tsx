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
// the screen's own read travels while the shell renders
const read = screenRead(new URL(location.href));
if (read) {
  prefetch(read.key, read.topics, read.load, read.first);
  // the client sends it a few promise steps later: let them run before the shell's render holds the thread
  await new Promise((resolve) => setTimeout(resolve, 0));
}
render(<App />, document.getElementById('app')!);
