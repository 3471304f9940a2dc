import { signal } from '@preact/signals';

/**
 * Light and dark: the system's choice unless the operator picked one, kept in localStorage and
 * applied as `data-theme` on <html>, which the stylesheet's custom properties follow.
 */
type Theme = 'system' | 'light' | 'dark';
const KEY = 'fleet-console.theme';
const order: readonly Theme[] = ['system', 'light', 'dark'];
const names: Record<Theme, string> = { system: 'System', light: 'Light', dark: 'Dark' };

function storedTheme(): Theme {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

const theme = signal<Theme>(storedTheme());

function apply(value: Theme): void {
  if (value === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = value;
}

export function applyStoredTheme(): void {
  apply(theme.value);
}

export function ThemeToggle() {
  const next = order[(order.indexOf(theme.value) + 1) % order.length]!;
  return (
    <button
      type="button"
      class="quiet"
      aria-label={`Theme: ${names[theme.value]} (switch to ${names[next]})`}
      onClick={() => {
        theme.value = next;
        try {
          if (next === 'system') localStorage.removeItem(KEY);
          else localStorage.setItem(KEY, next);
        } catch {
          // the choice lasts for this page only
        }
        apply(next);
      }}
    >
      {names[theme.value]} theme
    </button>
  );
}
