import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { previewRevert, revert, type RevertPreview, type Version } from '../history-data';
import { LocalTime, localTimeText } from './local-time';
import { Problem } from './problem';

/**
 * An entity's recorded versions as field-by-field diffs, newest first, each older one with "Revert
 * to this version" (previewed first: what the revert changes, then "Confirm revert"). The task page
 * shows a task's; the Audit screen the entity of the chosen audit record.
 */
export interface FieldView {
  /** The fields compared, in the order shown. */
  fields: readonly string[];
  label(field: string): string;
  value(field: string, value: unknown): ComponentChildren;
}

export const sameValue = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** A value as text: an empty one as a dash, a list joined, an object as its JSON. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value))
    return value.map((v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))).join(', ') || '—';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Every field any of the states holds, sorted: the view of an entity whose fields the console does not name. */
export function plainFieldView(states: ReadonlyArray<Record<string, unknown> | null | undefined>): FieldView {
  const fields = [...new Set(states.flatMap((s) => (s ? Object.keys(s) : [])))].sort();
  return { fields, label: (f) => f, value: (_f, v) => valueText(v) };
}

/** A table of the fields that differ between two states (`before` may be absent: every field then counts). */
export function DiffTable({
  view,
  before,
  after,
  caption,
  beforeHeading = 'Before',
  afterHeading = 'After',
  hideCaption = false,
}: {
  view: FieldView;
  before: Record<string, unknown> | null | undefined;
  after: Record<string, unknown> | null | undefined;
  caption: string;
  beforeHeading?: string;
  afterHeading?: string;
  hideCaption?: boolean;
}) {
  const changes = view.fields.filter((f) => !sameValue(before?.[f], after?.[f]));
  return (
    <table class="diff">
      <caption class={hideCaption ? 'visually-hidden' : undefined}>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">{beforeHeading}</th>
          <th scope="col">{afterHeading}</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((f) => (
          <tr key={f}>
            <th scope="row">{view.label(f)}</th>
            <td>{view.value(f, before?.[f])}</td>
            <td>{view.value(f, after?.[f])}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function VersionHistory({
  versions,
  view,
  headingId,
  title,
  onReverted,
}: {
  versions: Version[];
  view: FieldView;
  headingId: string;
  title: string;
  onReverted(): void;
}) {
  const preview = useSignal<{ version: Version; diff: RevertPreview } | undefined>(undefined);
  const problem = useSignal<string | undefined>(undefined);
  // newest first; each version shows what changed from the one before it
  const ordered = [...versions].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  const shownPreview = preview.value;
  return (
    <section aria-labelledby={headingId} class="card stack">
      <h2 id={headingId}>{title}</h2>
      <Problem text={problem.value} />
      {ordered.length === 0 ? <p class="muted">No versions recorded yet.</p> : null}
      <ol class="history-list">
        {ordered.map((version, i) => {
          const older = ordered[i + 1];
          return (
            <li key={version.id} aria-label={`Version of ${localTimeText(version.created_at)}`}>
              <p>
                <strong>
                  <LocalTime iso={version.created_at} />
                </strong>{' '}
                by {version.actor} ({version.reason})
              </p>
              {older ? (
                <DiffTable view={view} before={older.state} after={version.state} caption="Changes in this version" hideCaption />
              ) : (
                <p class="muted">The first recorded version.</p>
              )}
              {i > 0 ? (
                <button
                  type="button"
                  onClick={async () => {
                    problem.value = undefined;
                    try {
                      preview.value = { version, diff: await previewRevert(version.id) };
                    } catch (err) {
                      problem.value = (err as Error).message;
                    }
                  }}
                >
                  Revert to this version
                </button>
              ) : null}
              {shownPreview?.version.id === version.id ? (
                <div class="inline-form revert-preview" role="group" aria-label="Revert preview">
                  {shownPreview.diff.snapshot.revertable ? (
                    <>
                      <DiffTable
                        view={view}
                        before={shownPreview.diff.currentState}
                        after={shownPreview.diff.snapshotState}
                        caption="Reverting changes these fields"
                        beforeHeading="Now"
                        afterHeading="After the revert"
                      />
                      <button
                        type="button"
                        class="primary"
                        onClick={async () => {
                          try {
                            await revert(version.id);
                            preview.value = undefined;
                            onReverted();
                          } catch (err) {
                            problem.value = (err as Error).message;
                          }
                        }}
                      >
                        Confirm revert
                      </button>
                    </>
                  ) : (
                    <p>The API keeps versions of a {shownPreview.diff.snapshot.entity_type} but cannot revert one.</p>
                  )}
                  <button type="button" onClick={() => (preview.value = undefined)}>
                    Close
                  </button>
                </div>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
