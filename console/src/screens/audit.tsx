import { useSignal } from '@preact/signals';
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer } from '@tanstack/virtual-core';
import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { AUDIT_PAGE_ROWS, downloadAuditCsv, loadAuditPage, type AuditFilter, type AuditRecord } from '../audit-data';
import { loadVersions, type Version } from '../history-data';
import { invalidate, refetchNow, useQuery, type Topic } from '../queries';
import { saveFile } from '../save-file';
import { LocalTime, localTimeText } from '../parts/local-time';
import { Problem } from '../parts/problem';
import { DiffTable, plainFieldView, valueText, VersionHistory } from '../parts/version-history';

/**
 * The audit log: searched by text, actor, action, entity type and a range of days (all in the URL),
 * listed newest first in a virtualized list that reads the next page as its end scrolls into view;
 * a record opens its entity's history (field diffs, the entity's state as of that record, and
 * "Revert to this version" where the API can revert that kind of entity); "Download CSV" saves
 * GET /api/audit.csv for the same search.
 */
const filterKeys = ['q', 'actor', 'action', 'entity_type', 'start_date', 'end_date'] as const;

function filterOf(query: Record<string, string>): AuditFilter {
  const filter: AuditFilter = {};
  for (const key of filterKeys) if (query[key]) filter[key] = query[key];
  return filter;
}

/** Rows drawn beyond the visible ones, for smooth scrolling. */
const OVERSCAN = 6;
/** A row's height before it is measured (one line of text and its padding). */
const ROW_ESTIMATE_PX = 52;
/** The next page is asked for once the last drawn row is this close to the end of those read. */
const READ_AHEAD_ROWS = 20;

/** Topics whose changes make an entity's versions stale (those the stream names; others are read when opened). */
const versionTopics: Record<string, Topic[]> = { task: ['tasks'], project: ['projects'], workflow_run: ['runs'] };

export function AuditScreen(_props: { path: string }) {
  const { query, route } = useLocation();
  const filter = filterOf(query);
  const searchKey = new URLSearchParams(filter as Record<string, string>).toString();
  const problem = useSignal<string | undefined>(undefined);
  const selected = useSignal<AuditRecord | undefined>(undefined);
  const round = useSignal(0);

  const search = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const next = new URLSearchParams();
    for (const key of filterKeys) {
      const value = String(data.get(key) ?? '').trim();
      if (value) next.set(key, value);
    }
    selected.value = undefined;
    const wanted = next.toString();
    if (wanted === searchKey) {
      // the same search again: the log as it is now, read from its first page
      round.value++;
      refetchNow(`audit:${searchKey}`);
    } else route(`/audit${wanted ? `?${wanted}` : ''}`);
  };

  const download = async () => {
    problem.value = undefined;
    try {
      const file = await downloadAuditCsv(filter);
      saveFile(file.blob, file.fileName);
    } catch (err) {
      problem.value = `The CSV could not be read: ${(err as Error).message}`;
    }
  };

  return (
    <section aria-labelledby="screen-title" class="screen audit">
      <h1 id="screen-title">Audit</h1>
      <form role="search" aria-label="Audit search" class="card audit-search" key={searchKey} onSubmit={search}>
        <label class="field wide">
          <span>Search</span>
          <input type="search" name="q" defaultValue={filter.q ?? ''} maxLength={200} />
        </label>
        <label class="field">
          <span>Actor</span>
          <input name="actor" defaultValue={filter.actor ?? ''} maxLength={200} />
        </label>
        <label class="field">
          <span>Action</span>
          <input name="action" defaultValue={filter.action ?? ''} maxLength={200} />
        </label>
        <label class="field">
          <span>Entity type</span>
          <input name="entity_type" defaultValue={filter.entity_type ?? ''} maxLength={100} />
        </label>
        <label class="field">
          <span>From (day)</span>
          <input type="date" name="start_date" defaultValue={filter.start_date ?? ''} />
        </label>
        <label class="field">
          <span>To (day, included)</span>
          <input type="date" name="end_date" defaultValue={filter.end_date ?? ''} />
        </label>
        <div class="actions">
          <button type="submit" class="primary">
            Search
          </button>
          <button type="button" onClick={download}>
            Download CSV
          </button>
        </div>
      </form>
      <Problem text={problem.value} />
      <div class="audit-layout">
        <AuditResults
          key={`${searchKey}#${round.value}`}
          searchKey={searchKey}
          filter={filter}
          selected={selected.value}
          onOpen={(r) => (selected.value = r)}
        />
        {selected.value ? (
          <AuditEntry key={selected.value.id} record={selected.value} onClose={() => (selected.value = undefined)} />
        ) : null}
      </div>
    </section>
  );
}

/** The records of one search: its first page through the cache, the next ones read as the list scrolls. */
function AuditResults({
  searchKey,
  filter,
  selected,
  onOpen,
}: {
  searchKey: string;
  filter: AuditFilter;
  selected: AuditRecord | undefined;
  onOpen(r: AuditRecord): void;
}) {
  // the log grows with every change anywhere: the search shows the log as it was read, and Search reads it again
  const first = useQuery(`audit:${searchKey}`, [], () => loadAuditPage(filter, 0));
  const later = useSignal<AuditRecord[]>([]);
  const reading = useSignal(false);
  const ended = useSignal(false);
  const problem = useSignal<string | undefined>(undefined);
  const firstPage = first.data.value;
  const records = firstPage ? [...firstPage.records, ...later.value] : [];
  const complete = firstPage !== undefined && (firstPage.records.length < AUDIT_PAGE_ROWS || ended.value);

  const readMore = async () => {
    if (reading.value || complete || !firstPage) return;
    reading.value = true;
    try {
      const page = await loadAuditPage(filter, records.length);
      later.value = [...later.value, ...page.records];
      if (page.records.length < AUDIT_PAGE_ROWS) ended.value = true;
    } catch (err) {
      problem.value = `The next records could not be read: ${(err as Error).message}`;
    } finally {
      reading.value = false;
    }
  };

  const scroller = useRef<HTMLDivElement>(null);
  const [, rerender] = useState(0);
  const virtualizer = useMemo(
    () =>
      new Virtualizer<HTMLDivElement, HTMLElement>({
        count: 0,
        getScrollElement: () => scroller.current,
        estimateSize: () => ROW_ESTIMATE_PX,
        initialRect: { width: 0, height: Math.max(window.innerHeight, 400) },
        overscan: OVERSCAN,
        scrollToFn: elementScroll,
        observeElementRect,
        observeElementOffset,
        onChange: () => rerender((n) => n + 1),
      }),
    [],
  );
  virtualizer.setOptions({ ...virtualizer.options, count: records.length, getItemKey: (i) => records[i]?.id ?? i });
  useLayoutEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => {
    virtualizer._willUpdate();
  });
  const items = virtualizer.getVirtualItems();
  const lastDrawn = items[items.length - 1]?.index ?? -1;
  useLayoutEffect(() => {
    if (lastDrawn >= records.length - READ_AHEAD_ROWS) void readMore();
  }, [lastDrawn, records.length, complete]);

  if (first.error.value && !firstPage) return <Problem text={`The audit log could not be read: ${first.error.value}`} />;
  return (
    <section aria-labelledby="records-title" class="card audit-records">
      <h2 id="records-title">Records</h2>
      <p class="muted" role="status">
        {!firstPage
          ? 'Reading the audit log…'
          : records.length === 0
            ? 'No audit record matches.'
            : `${records.length.toLocaleString()}${complete ? '' : '+'} record${records.length === 1 ? '' : 's'}, newest first${reading.value ? '; reading more…' : ''}`}
        {firstPage?.unsearched
          ? ` ${firstPage.unsearched} recently written records wait for the search index and were not searched by text.`
          : ''}
      </p>
      <Problem text={problem.value} />
      <div class="audit-scroll" ref={scroller}>
        <ol class="audit-list" aria-label="Audit records" style={{ height: `${virtualizer.getTotalSize()}px` }}>
          {items.map((item) => {
            const r = records[item.index]!;
            return (
              <li
                key={r.id}
                data-index={item.index}
                ref={(el) => {
                  if (el) virtualizer.measureElement(el);
                }}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <button
                  type="button"
                  class={`audit-row${selected?.id === r.id ? ' selected' : ''}`}
                  aria-pressed={selected?.id === r.id}
                  onClick={() => onOpen(r)}
                >
                  <LocalTime iso={String(r.timestamp)} /> <strong>{r.actor}</strong> {r.action} {r.entity_type}
                  {r.entity_id ? <span class="muted"> {r.entity_id}</span> : null}
                </button>
              </li>
            );
          })}
        </ol>
      </div>
    </section>
  );
}

/** An object's fields, or undefined for a value that is not one (a JSON scalar, null). */
const fieldsOf = (value: unknown) =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** The newest version recorded at or before `at`: the entity's state just after that moment's change. */
function versionAsOf(versions: readonly Version[], at: string): Version | undefined {
  const limit = Date.parse(at);
  return [...versions]
    .filter((v) => Date.parse(v.created_at) <= limit)
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0];
}

/** One audit record opened: its change as a diff, the entity's state as of it, and the entity's history with its reverts. */
function AuditEntry({ record, onClose }: { record: AuditRecord; onClose(): void }) {
  const entityId = record.entity_id;
  const notice = useSignal<string | undefined>(undefined);
  const versions = useQuery(`entity-versions:${record.entity_type}:${entityId ?? ''}`, versionTopics[record.entity_type] ?? [], () =>
    entityId ? loadVersions(record.entity_type, entityId, 200) : Promise.resolve([] as Version[]),
  );
  const at = String(record.timestamp);
  const before = fieldsOf(record.old_value);
  const after = fieldsOf(record.new_value);
  const list = versions.data.value;
  const asOf = list ? versionAsOf(list, at) : undefined;
  return (
    <section aria-labelledby="entry-title" class="card stack audit-entry">
      <h2 id="entry-title">
        {record.action} · {record.entity_type} {entityId ?? ''}
      </h2>
      <p>
        By <strong>{record.actor}</strong> at <LocalTime iso={at} />.{' '}
        {record.task_id ? <a href={`/tasks/${record.task_id}`}>Open the task</a> : null}
      </p>
      <button type="button" onClick={onClose}>
        Close
      </button>
      {notice.value ? (
        <p role="status" class="notice">
          {notice.value}
        </p>
      ) : null}
      {before || after ? (
        <DiffTable view={plainFieldView([before, after])} before={before} after={after} caption="This change" />
      ) : (
        <p>
          Before: {valueText(record.old_value)}; after: {valueText(record.new_value)}.
        </p>
      )}
      <section aria-labelledby="as-of-title" class="stack">
        <h3 id="as-of-title">State as of {localTimeText(at)}</h3>
        {!entityId ? (
          <p class="muted">This record names no entity.</p>
        ) : versions.error.value ? (
          <Problem text={`The versions could not be read: ${versions.error.value}`} />
        ) : !list ? (
          <p class="muted">Reading the versions…</p>
        ) : asOf ? (
          <StateTable state={asOf.state} caption={`The ${record.entity_type} as recorded at ${localTimeText(asOf.created_at)}`} />
        ) : (
          <p class="muted">No version of this {record.entity_type} was recorded by then.</p>
        )}
      </section>
      {entityId && list ? (
        <VersionHistory
          versions={list}
          view={plainFieldView(list.map((v) => v.state))}
          headingId="entity-history-title"
          title="Entity history"
          onReverted={() => {
            notice.value = 'Reverted to the chosen version.';
            versions.refetch();
            invalidate(versionTopics[record.entity_type] ?? []);
          }}
        />
      ) : null}
    </section>
  );
}

function StateTable({ state, caption }: { state: Record<string, unknown>; caption: string }) {
  return (
    <table class="diff">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {Object.keys(state)
          .sort()
          .map((f) => (
            <tr key={f}>
              <th scope="row">{f}</th>
              <td>{valueText(state[f])}</td>
            </tr>
          ))}
      </tbody>
    </table>
  );
}
