import { signal, useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import { refetchNow, useQuery } from '../queries';
import { saveFile } from '../save-file';
import {
  applyRestore,
  createSnapshot,
  downloadSnapshot,
  loadRestoreStatus,
  loadSnapshots,
  newRestoreId,
  previewRestore,
  type RestoreMode,
  type RestorePreview,
  type RestoreStatus,
  type SnapshotEntry,
  type TablePreview,
} from '../snapshots-data';
import { LocalTime } from '../parts/local-time';
import { Problem } from '../parts/problem';
import { valueText } from '../parts/version-history';

/**
 * Full-state snapshots: the list (name, size, created, content hash) with "Create snapshot" and each
 * one's download; a restore in two steps, the preview first (per table what would be added, changed
 * and removed, with a sample of the rows), then the apply behind the snapshot's name typed as a
 * confirmation. The restore followed is in the URL (`?restore=<id>`): its progress is the server's
 * checkpoint (GET /api/restore/:id, refreshed by restore-progress events), so a reload finds it
 * running, finished, or stopped and resumable with the same id (docs/console.md).
 */
/** The apply requests this page sent, by restore id: their answer, their failure, or still waiting (kept across the screen's re-renders, not a reload). */
const applies = signal<
  Record<string, { state: 'sending' } | { state: 'answered'; summary: Record<string, unknown> } | { state: 'failed'; problem: string }>
>({});

function startApply(snapshotId: string, mode: RestoreMode, restoreId: string, onSettled: () => void): void {
  applies.value = { ...applies.value, [restoreId]: { state: 'sending' } };
  applyRestore(snapshotId, mode, restoreId)
    .then(
      (answer) => (applies.value = { ...applies.value, [restoreId]: { state: 'answered', summary: answer.summary } }),
      (err: Error) => (applies.value = { ...applies.value, [restoreId]: { state: 'failed', problem: err.message } }),
    )
    .finally(onSettled);
}

const sizeText = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`;

export function SnapshotsScreen(_props: { path: string }) {
  const { query, route } = useLocation();
  const list = useQuery('snapshots', [], loadSnapshots);
  const problem = useSignal<string | undefined>(undefined);
  const creating = useSignal(false);
  const previewing = useSignal<SnapshotEntry | undefined>(undefined);
  const restoreId = query.restore;

  const create = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const name = String(new FormData(form).get('name') ?? '').trim();
    problem.value = undefined;
    creating.value = true;
    try {
      await createSnapshot(name || undefined);
      form.reset();
      list.refetch();
    } catch (err) {
      problem.value = `The snapshot could not be created: ${(err as Error).message}`;
    } finally {
      creating.value = false;
    }
  };

  const download = async (s: SnapshotEntry) => {
    problem.value = undefined;
    try {
      const file = await downloadSnapshot(s.snapshot_id);
      saveFile(file.blob, file.fileName);
    } catch (err) {
      problem.value = `The snapshot could not be downloaded: ${(err as Error).message}`;
    }
  };

  const snapshots = list.data.value;
  return (
    <section aria-labelledby="screen-title" class="screen snapshots">
      <h1 id="screen-title">Snapshots</h1>
      <form class="card inline-form" aria-label="New snapshot" onSubmit={create}>
        <label class="field inline">
          <span>Name (optional)</span>
          <input name="name" maxLength={120} />
        </label>
        <button type="submit" class="primary" disabled={creating.value}>
          Create snapshot
        </button>
        {creating.value ? (
          <span role="status" class="muted">
            Writing the snapshot…
          </span>
        ) : null}
      </form>
      <Problem text={problem.value} />
      {restoreId ? (
        <RestoreProgress key={restoreId} restoreId={restoreId} onDone={() => list.refetch()} onDismiss={() => route('/snapshots')} />
      ) : null}
      {previewing.value && !restoreId ? (
        <RestorePreviewPanel
          key={previewing.value.snapshot_id}
          snapshot={previewing.value}
          onClose={() => (previewing.value = undefined)}
          onApply={(mode) => {
            const snapshotId = previewing.value!.snapshot_id;
            const id = newRestoreId();
            previewing.value = undefined;
            // the id in the URL first: a reload during the apply still finds the restore it follows
            route(`/snapshots?restore=${id}`);
            startApply(snapshotId, mode, id, () => {
              refetchNow(`restore:${id}`);
              list.refetch();
            });
          }}
        />
      ) : null}
      <section aria-labelledby="list-title" class="card">
        <h2 id="list-title">Stored snapshots</h2>
        {list.error.value && !snapshots ? <Problem text={`The snapshots could not be read: ${list.error.value}`} /> : null}
        {!snapshots ? (
          <p class="muted">Reading the snapshots…</p>
        ) : snapshots.length === 0 ? (
          <p class="muted">No snapshot yet.</p>
        ) : (
          <div class="table-scroll">
            <table class="snapshot-table">
              <caption class="visually-hidden">Stored snapshots, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Size</th>
                  <th scope="col">Created</th>
                  <th scope="col">Content hash</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {snapshots.map((s) => (
                  <tr key={s.snapshot_id}>
                    <th scope="row" id={`snapshot-${s.snapshot_id}`}>
                      {s.name}
                    </th>
                    <td>
                      {sizeText(s.size_bytes)}{' '}
                      <span class="muted">
                        ({s.total_rows.toLocaleString()} {s.total_rows === 1 ? 'row' : 'rows'})
                      </span>
                    </td>
                    <td>
                      <LocalTime iso={s.created_at} />
                    </td>
                    <td>
                      <code class="hash" title={s.content_hash}>
                        {s.content_hash}
                      </code>
                    </td>
                    <td class="actions">
                      <button type="button" aria-describedby={`snapshot-${s.snapshot_id}`} onClick={() => download(s)}>
                        Download
                      </button>
                      <button
                        type="button"
                        aria-describedby={`snapshot-${s.snapshot_id}`}
                        onClick={() => (previewing.value = s)}
                        disabled={Boolean(restoreId)}
                      >
                        Restore
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </section>
  );
}

/** The first step of a restore: what it would change, table by table, then the mode and the typed confirmation. */
function RestorePreviewPanel({
  snapshot,
  onClose,
  onApply,
}: {
  snapshot: SnapshotEntry;
  onClose(): void;
  onApply(mode: RestoreMode): void;
}) {
  // read when opened, never from the cache: the database may have changed since the last preview
  const preview = { data: useSignal<RestorePreview | undefined>(undefined), error: useSignal<string | undefined>(undefined) };
  useEffect(() => {
    previewRestore(snapshot.snapshot_id).then(
      (answer) => (preview.data.value = answer),
      (err: Error) => (preview.error.value = err.message),
    );
  }, [snapshot.snapshot_id]);
  const mode = useSignal<RestoreMode>('merge');
  const typed = useSignal('');
  const p = preview.data.value;
  const tables = p ? Object.entries(p.tables) : [];
  const differing = tables.filter(([, t]) => t.added + t.updated + t.conflicts + (mode.value === 'replace' ? t.absent : 0) > 0);
  return (
    <section aria-labelledby="preview-title" class="card stack restore-preview">
      <h2 id="preview-title">Restore preview: {snapshot.name}</h2>
      {preview.error.value ? <Problem text={`The preview could not be made: ${preview.error.value}`} /> : null}
      {!p && !preview.error.value ? (
        <p class="muted" role="status">
          Comparing the snapshot with the database…
        </p>
      ) : null}
      {p ? (
        <>
          {p.warning_details.length ? (
            <ul class="warnings">
              {p.warning_details.map((w, i) => (
                <li key={i}>{String((w as { message?: unknown }).message ?? (w as { code?: unknown }).code)}</li>
              ))}
            </ul>
          ) : null}
          <fieldset class="mode">
            <legend>Mode</legend>
            <label>
              <input
                type="radio"
                name="restore-mode"
                value="merge"
                checked={mode.value === 'merge'}
                onChange={() => (mode.value = 'merge')}
              />{' '}
              Merge: add and update the snapshot’s rows, keep the others
            </label>
            <label>
              <input
                type="radio"
                name="restore-mode"
                value="replace"
                checked={mode.value === 'replace'}
                onChange={() => (mode.value = 'replace')}
              />{' '}
              Replace: also remove the rows the snapshot does not hold
            </label>
          </fieldset>
          <div class="table-scroll">
            <table class="diff restore-diff">
              <caption>
                What the restore changes ({mode.value}): {differing.length} of {tables.length} tables
              </caption>
              <thead>
                <tr>
                  <th scope="col">Table</th>
                  <th scope="col">Added</th>
                  <th scope="col">Changed</th>
                  <th scope="col">Removed</th>
                  <th scope="col">Sample of rows</th>
                </tr>
              </thead>
              <tbody>
                {differing.map(([name, t]) => (
                  <tr key={name}>
                    <th scope="row">{name}</th>
                    <td>{t.added}</td>
                    <td>{t.updated + t.conflicts}</td>
                    <td>{mode.value === 'replace' ? t.absent : 0}</td>
                    <td>
                      <RowSampleList table={name} t={t} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {differing.length === 0 ? <p>The database already holds this snapshot’s rows: the restore would change nothing.</p> : null}
          <label class="field">
            <span>Type the snapshot’s name ({snapshot.name}) to confirm</span>
            <input value={typed.value} onInput={(e) => (typed.value = (e.currentTarget as HTMLInputElement).value)} autoComplete="off" />
          </label>
          <div class="actions">
            <button type="button" class="danger" disabled={typed.value !== snapshot.name} onClick={() => onApply(mode.value)}>
              Apply restore
            </button>
            <button type="button" onClick={onClose}>
              Close
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}

/** A row's key as text: the value of a one-column key, the values of a composite one joined by `/`. */
const keyText = (pk: unknown) => (typeof pk === 'object' && pk !== null ? Object.values(pk).map(String).join('/') : String(pk));
/** Columns a person names a row by, where the table has one. */
const namingColumns = ['title', 'name', 'action', 'status'];
/** At most this many changed columns are listed per sampled row. */
const SAMPLE_COLUMNS = 3;

/** The preview's sample of a table's rows: added ones (`+`, by key and name) and changed ones (`~`, each differing column: now → the snapshot's). */
function RowSampleList({ table, t }: { table: string; t: TablePreview }) {
  const added = t.sample.added.map(({ key, row }) => {
    const naming = namingColumns.find((c) => typeof row[c] === 'string');
    return `+ ${keyText(key)}${naming ? ` ${valueText(row[naming])}` : ''}`;
  });
  const changed = t.sample.changed.map(
    (c) =>
      `~ ${keyText(c.key)}: ${c.columns
        .slice(0, SAMPLE_COLUMNS)
        .map((col) => `${col.column} ${valueText(col.live)} → ${valueText(col.snapshot)}`)
        .join('; ')}${c.columns.length > SAMPLE_COLUMNS ? ` (+${c.columns.length - SAMPLE_COLUMNS} columns)` : ''}`,
  );
  const lines = [...added, ...changed];
  if (lines.length === 0) return <>—</>;
  return (
    <ul class="sample" aria-label={`Sample of ${table}`}>
      {lines.map((line, i) => (
        <li key={i}>{line}</li>
      ))}
    </ul>
  );
}

const stateText: Record<RestoreStatus['state'], string> = {
  running: 'Restoring…',
  completed: 'Restored.',
  failed: 'The restore stopped; it resumes where it stopped.',
  interrupted: 'The restore was interrupted (the server stopped during it); it resumes where it stopped.',
};

/** A restore followed from its start or found again after a reload: its progress, then its result; a stopped one can resume. */
function RestoreProgress({ restoreId, onDone, onDismiss }: { restoreId: string; onDone(): void; onDismiss(): void }) {
  const status = useQuery(`restore:${restoreId}`, ['restores'], () => loadRestoreStatus(restoreId));
  const sent = applies.value[restoreId];
  const s = status.data.value;
  const settle = () => {
    status.refetch();
    onDone();
  };
  // what this page knows first-hand (its own request) comes before what the server last said
  const summary = sent?.state === 'answered' ? sent.summary : s?.state === 'completed' ? s.summary : undefined;
  const headline =
    sent?.state === 'answered' || s?.state === 'completed'
      ? stateText.completed
      : sent?.state === 'failed'
        ? `The restore failed: ${sent.problem}`
        : s
          ? stateText[s.state]
          : sent?.state === 'sending'
            ? 'Restoring… (verifying the snapshot)'
            : status.error.value
              ? 'The server has no restore with this id yet: it opens one once the snapshot is verified.'
              : 'Reading the restore’s state…';
  const resumable = sent?.state !== 'sending' && !summary && s && (s.state === 'failed' || s.state === 'interrupted');
  const tables = summary ? Object.entries((summary.tables ?? {}) as Record<string, { upserted: number; deleted: number }>) : [];
  return (
    <section aria-labelledby="restore-title" class="card stack restore-progress">
      <h2 id="restore-title">Restore</h2>
      <p role="status">{headline}</p>
      {s && s.total_rows !== null && !summary ? (
        <div class="field">
          <label for="restore-progress">
            {(s.done_rows ?? 0).toLocaleString()} of {s.total_rows.toLocaleString()} rows; {s.completed_steps.length} of {s.steps_total}{' '}
            steps
          </label>
          <progress id="restore-progress" aria-label="Restore progress" max={s.total_rows || 1} value={s.done_rows ?? 0} />
        </div>
      ) : null}
      {summary ? (
        <div class="table-scroll">
          <table class="diff">
            <caption>Result: rows written and removed per table</caption>
            <thead>
              <tr>
                <th scope="col">Table</th>
                <th scope="col">Written</th>
                <th scope="col">Removed</th>
              </tr>
            </thead>
            <tbody>
              {tables
                .filter(([, t]) => t.upserted + t.deleted > 0)
                .map(([name, t]) => (
                  <tr key={name}>
                    <th scope="row">{name}</th>
                    <td>{t.upserted}</td>
                    <td>{t.deleted}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <div class="actions">
        {resumable && s ? (
          <button type="button" class="primary" onClick={() => startApply(s.snapshot_id, s.mode, restoreId, settle)}>
            Resume restore
          </button>
        ) : null}
        {sent?.state !== 'sending' && s?.state !== 'running' ? (
          <button type="button" onClick={onDismiss}>
            Done
          </button>
        ) : null}
      </div>
    </section>
  );
}
