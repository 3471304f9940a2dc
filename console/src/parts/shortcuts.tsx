import { signal } from '@preact/signals';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { openPalette } from './command-palette';

/**
 * The keyboard shortcuts: Ctrl+K or Cmd+K the command palette, `g i` the Inbox, `g b` the Board,
 * `j`/`k` the next and previous item of the list on screen (elements marked data-list-item), `?`
 * this list. Letters are ignored while a field has the focus.
 */
export const shortcuts: readonly { keys: string; does: string }[] = [
  { keys: 'Ctrl+K / ⌘K', does: 'open the command palette' },
  { keys: 'g i', does: 'go to the Inbox' },
  { keys: 'g b', does: 'go to the Board' },
  { keys: 'j / k', does: 'next / previous item in a list' },
  { keys: '?', does: 'show these shortcuts' },
];

const helpOpen = signal(false);

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

function moveInList(step: 1 | -1): void {
  const items = [...document.querySelectorAll<HTMLElement>('main [data-list-item]')];
  if (items.length === 0) return;
  const at = items.findIndex((el) => el === document.activeElement || el.contains(document.activeElement));
  const next = items[at === -1 ? (step === 1 ? 0 : items.length - 1) : Math.min(items.length - 1, Math.max(0, at + step))]!;
  next.focus();
  next.scrollIntoView({ block: 'nearest' });
}

/**
 * Listens from the commit of the first render on: a layout effect runs before the page is painted, where
 * a plain effect waits for an animation frame that a background tab or a busy machine may delay, and a key
 * pressed as soon as the screen shows would be lost. The listener is added once; `navigate` is read through
 * a ref, since the router hands a new function on renders.
 */
export function useShortcuts(navigate: (url: string) => void): void {
  const pendingG = useRef(false);
  const navigateTo = useRef(navigate);
  navigateTo.current = navigate;
  useLayoutEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        openPalette();
        return;
      }
      if (event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
      if (document.querySelector('dialog[open]')) return;
      if (pendingG.current) {
        pendingG.current = false;
        if (event.key === 'i') navigateTo.current('/');
        else if (event.key === 'b') navigateTo.current('/board');
        return;
      }
      if (event.key === 'g') pendingG.current = true;
      else if (event.key === 'j') moveInList(1);
      else if (event.key === 'k') moveInList(-1);
      else if (event.key === '?') helpOpen.value = true;
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

export function ShortcutHelp() {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (helpOpen.value && !el.open) el.showModal();
    if (!helpOpen.value && el.open) el.close();
  }, [helpOpen.value]);
  return (
    <dialog ref={dialog} aria-labelledby="shortcuts-title" class="dialog" onClose={() => (helpOpen.value = false)}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <dl class="shortcut-list">
        {shortcuts.map((s) => (
          <div key={s.keys}>
            <dt>
              <kbd>{s.keys}</kbd>
            </dt>
            <dd>{s.does}</dd>
          </div>
        ))}
      </dl>
      <form method="dialog">
        <button type="submit">Close</button>
      </form>
    </dialog>
  );
}
