import { render } from 'preact';
import { connectApi } from './api';
import { App } from './app';
import { loadConsoleConfig } from './config';
import { applyStoredTheme } from './parts/theme-toggle';
import './styles.css';

applyStoredTheme();
const config = await loadConsoleConfig();
connectApi(config.apiBaseUrl);
render(<App />, document.getElementById('app')!);
