import { signal, useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, expectData } from '../api';
import { searchTasks, type FoundTask } from '../task-search';
import { screens } from './main-nav';
import { Problem } from './problem';

/**
 * The command palette (Ctrl+K or Cmd+K): go to a screen, find any task by title through the server
 * (GET /api/tasks/search, over all tasks), open a run by its id, or create a task. The results are
 * options of a listbox driven from the field with the arrow keys and Enter.
 */
const open = signal(false);
export const openPalette = () => {
  open.value = true;
};

interface Choice {
  id: string;
  label: string;
  hint?: string;
  act(): void | Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SEARCH_DELAY_MS = 150;

export function CommandPalette() {
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const { route } = useLocation();
  const text = useSignal('');
  const found = useSignal<FoundTask[]>([]);
  const active = useSignal(0);
  const problem = useSignal<string | undefined>(undefined);

  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open.value && !el.open) {
      text.value = '';
      found.value = [];
      active.value = 0;
      problem.value = undefined;
      el.showModal();
      input.current?.focus();
    }
    if (!open.value && el.open) el.close();
  }, [open.value]);

  useEffect(() => {
    const q = text.value.trim();
    if (!q) {
      found.value = [];
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      searchTasks(q)
        .then((tasks) => {
          if (current) found.value = tasks;
        })
        .catch((err: Error) => {
          if (current) problem.value = err.message;
        });
    }, SEARCH_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text.value]);

  const close = () => {
    open.value = false;
  };
  const go = (url: string) => {
    close();
    route(url);
  };

  const q = text.value.trim();
  const lower = q.toLowerCase();
  const choices: Choice[] = [
    ...screens
      .filter((s) => !q || s.name.toLowerCase().includes(lower))
      .map((s) => ({ id: `screen-${s.name}`, label: `Go to ${s.name}`, act: () => go(s.path) })),
    ...found.value.map((t) => ({
      id: `task-${t.id}`,
      label: t.title,
      hint: `task · ${t.status}${t.project_name ? ` · ${t.project_name}` : ''}`,
      act: () => go(`/tasks/${t.id}`),
    })),
    ...(UUID.test(q) ? [{ id: 'run', label: `Open run ${q}`, act: () => go(`/runs/${q}`) }] : []),
    ...(q
      ? [
          {
            id: 'create',
            label: `Create task “${q}”`,
            act: async () => {
              try {
                const projects = await expectData(api().GET('/api/projects'));
                const first = (projects as { id: string }[])[0];
                if (!first) {
                  problem.value = 'There is no project to create the task in.';
                  return;
                }
                const task = await expectData(api().POST('/api/tasks', { body: { project_id: first.id, title: q } }));
                go(`/tasks/${(task as { id: string }).id}`);
              } catch (err) {
                problem.value = (err as Error).message;
              }
            },
          },
        ]
      : []),
  ];
  const at = Math.min(active.value, Math.max(0, choices.length - 1));

  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      active.value = Math.min(choices.length - 1, at + 1);
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      active.value = Math.max(0, at - 1);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      void choices[at]?.act();
    }
  };

  return (
    <dialog ref={dialog} aria-label="Command palette" class="dialog palette" onClose={close}>
      <input
        ref={input}
        type="text"
        role="combobox"
        aria-label="Command or task title"
        aria-expanded="true"
        aria-controls="palette-results"
        aria-activedescendant={choices[at] ? `palette-${choices[at]!.id}` : undefined}
        aria-autocomplete="list"
        placeholder="Go to a screen, find a task, paste a run id…"
        value={text.value}
        onInput={(e) => {
          text.value = (e.currentTarget as HTMLInputElement).value;
          active.value = 0;
          problem.value = undefined;
        }}
        onKeyDown={onKey}
      />
      <ul id="palette-results" role="listbox" aria-label="Results">
        {choices.map((c, i) => (
          <li
            key={c.id}
            id={`palette-${c.id}`}
            role="option"
            aria-selected={i === at}
            class={i === at ? 'active' : undefined}
            onClick={() => void c.act()}
          >
            <span>{c.label}</span>
            {c.hint ? <span class="hint">{c.hint}</span> : null}
          </li>
        ))}
      </ul>
      <Problem text={problem.value} />
    </dialog>
  );
}
