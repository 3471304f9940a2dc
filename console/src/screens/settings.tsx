import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { apiBase } from '../api';
import { ActionOutcome, useInPlaceAction } from '../parts/in-place-action';
import { LocalTime } from '../parts/local-time';
import { Problem } from '../parts/problem';
import { refetchNow, useQuery } from '../queries';
import {
  jobRunsKey,
  loadJobRuns,
  loadOverview,
  OVERVIEW_KEY,
  overviewTopics,
  runJobNow,
  setJobEnabled,
  type RoutingEntry,
  type ScheduledJob,
  type SettingsOverview,
} from '../settings-data';
import { WebhookSection } from './settings-webhooks';

/** The fleet's configuration: webhooks, routing, the governance policy, the runtime's scheduled jobs and health, and the server. */
export function SettingsScreen(_props: { path: string }) {
  const overview = useQuery(OVERVIEW_KEY, overviewTopics, loadOverview);
  const data = overview.data.value;
  return (
    <section aria-labelledby="screen-title" class="screen settings-screen">
      <h1 id="screen-title">Settings</h1>
      <Problem text={overview.error.value && `The settings could not be read: ${overview.error.value}`} />
      <WebhookSection eventTypes={data?.webhook_event_types} />
      {!data ? (
        <p class="muted">Reading the settings…</p>
      ) : (
        <>
          <RoutingSection routes={data.routing} />
          <GovernanceSection governance={data.governance} />
          <JobsSection jobs={data.scheduled_jobs} />
          <RuntimeSection runtime={data.runtime} />
          <ServerSection server={data.server} />
        </>
      )}
    </section>
  );
}

/** A setting's section: a heading and its content, named by the heading. */
function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section aria-labelledby={id} class="settings-section stack">
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

function Facts({ facts }: { facts: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {facts.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

const usd = (value: number | null) => (value === null ? 'none' : `$${value.toFixed(2)}`);

function RoutingSection({ routes }: { routes: RoutingEntry[] }) {
  return (
    <Section id="routing-title" title="Routing">
      {routes.length === 0 ? (
        <p class="muted">No routing entry: runs go to the agent their creator names.</p>
      ) : (
        <ul class="card-list" aria-labelledby="routing-title">
          {routes.map((r) => (
            <li key={r.workflow_type} class="setting-card" aria-labelledby={`route-${r.workflow_type}`}>
              <h3 id={`route-${r.workflow_type}`}>{r.workflow_type}</h3>
              <Facts
                facts={[
                  ['Agent', r.agent_id],
                  ['Priority', r.priority],
                  ['Timeout', `${r.timeout_minutes} min`],
                  ['Cap on live runs', r.max_concurrent ?? 'none'],
                  ['Expected cost', usd(r.expected_cost_usd)],
                  ['Expected tokens', r.expected_tokens ?? 'none'],
                  ['Exclusive per task', r.exclusive_per_task ? 'Yes: one live run per task' : 'No'],
                ]}
              />
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

function GovernanceSection({ governance }: { governance: SettingsOverview['governance'] }) {
  return (
    <Section id="governance-title" title="Governance policy">
      <p>
        Full operator rights: {governance.privileged_actors.join(', ')}. The operator role: names matching{' '}
        {governance.operator_name_patterns.map((p, i) => (
          <span key={p}>
            {i > 0 ? ', ' : ''}
            <code>{p}</code>
          </span>
        ))}
        . Any other actor takes its role and capabilities from its agent profile, else it is external with none.
      </p>
      <ul class="card governance-list" aria-label="Who may take each action">
        {governance.actions.map((a) => (
          <li key={a.action}>
            <strong>{a.label}</strong>: the roles {a.roles.join(', ')}, or a capability among {a.capabilities.join(', ')}.
          </li>
        ))}
      </ul>
    </Section>
  );
}

function JobsSection({ jobs }: { jobs: SettingsOverview['scheduled_jobs'] }) {
  const runtime = jobs.runtime as { ok: boolean; error?: string };
  return (
    <Section id="jobs-title" title="Scheduled jobs">
      {runtime.ok ? null : <p class="problem">The runtime did not list its jobs: {runtime.error ?? 'no answer'}.</p>}
      {jobs.jobs.length === 0 ? (
        <p class="muted">No scheduled job.</p>
      ) : (
        <ul class="card-list" aria-labelledby="jobs-title">
          {jobs.jobs.map((job) => (
            <JobCard key={job.id} job={job} />
          ))}
        </ul>
      )}
    </Section>
  );
}

const jobStatusWords: Record<ScheduledJob['status'], string> = { success: 'Succeeded', failed: 'Failed', unknown: 'Unknown' };

function JobCard({ job }: { job: ScheduledJob }) {
  const action = useInPlaceAction();
  const { busy } = action;
  const showRuns = useSignal(false);
  const titleId = `job-${job.id.replace(/[^a-zA-Z0-9_-]/g, '-')}`;
  // the runtime publishes no event: what changed is read again here
  const act = (work: () => Promise<unknown>, done: string) =>
    void action.run(
      async () => {
        await work();
        return done;
      },
      () => {
        refetchNow(OVERVIEW_KEY);
        if (showRuns.value) refetchNow(jobRunsKey(job.id));
      },
    );
  return (
    <li class="setting-card" aria-labelledby={titleId}>
      <h3 id={titleId}>{job.name}</h3>
      {job.description ? <p>{job.description}</p> : null}
      <Facts
        facts={[
          ['Schedule', job.schedule],
          ['Enabled', job.enabled ? 'Yes' : 'No'],
          ['Last run', job.lastRun ? <LocalTime iso={job.lastRun} /> : 'Never'],
          ['Last status', jobStatusWords[job.status]],
          ['Next run', job.nextRun ? <LocalTime iso={job.nextRun} /> : 'Not planned'],
          ['Agent', job.agentId ?? 'default'],
        ]}
      />
      <div class="actions">
        <button
          type="button"
          disabled={busy.value}
          onClick={() => act(() => setJobEnabled(job.id, !job.enabled), job.enabled ? 'Disabled.' : 'Enabled.')}
        >
          {job.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" disabled={busy.value} onClick={() => act(() => runJobNow(job.id), 'Started.')}>
          Run now
        </button>
        <button type="button" aria-expanded={showRuns.value} onClick={() => (showRuns.value = !showRuns.value)}>
          Recent runs
        </button>
      </div>
      <ActionOutcome action={action} />
      {showRuns.value ? <JobRuns jobId={job.id} /> : null}
    </li>
  );
}

const runStatusWords: Record<string, string> = { success: 'Succeeded', failed: 'Failed', running: 'Running', skipped: 'Skipped' };

/** The job's latest runs as the runtime lists them, read when shown (a runtime call per job). */
function JobRuns({ jobId }: { jobId: string }) {
  const runs = useQuery(jobRunsKey(jobId), overviewTopics, () => loadJobRuns(jobId));
  const list = runs.data.value?.runs;
  return (
    <div class="stack">
      <Problem text={runs.error.value && `The runs could not be read: ${runs.error.value}`} />
      {!list ? (
        <p class="muted">Reading the runs…</p>
      ) : list.length === 0 ? (
        <p class="muted">No run yet.</p>
      ) : (
        <ul class="plain-list" aria-label="Recent runs">
          {list.map((run) => {
            const r = run as { id: string; status: string; startedAt: string | null; finishedAt: string | null };
            return (
              <li key={r.id}>
                {runStatusWords[r.status] ?? r.status}
                {r.startedAt ? (
                  <>
                    {', started '}
                    <LocalTime iso={r.startedAt} />
                  </>
                ) : null}
                {r.finishedAt ? (
                  <>
                    {', finished '}
                    <LocalTime iso={r.finishedAt} />
                  </>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

function RuntimeSection({ runtime }: { runtime: SettingsOverview['runtime'] }) {
  return (
    <Section id="runtime-title" title="Runtime health">
      {runtime.available ? (
        <Facts
          facts={[
            ['Status', runtime.ok ? 'Healthy' : 'Not healthy'],
            [
              'Channels',
              Object.entries(runtime.channels)
                .map(([name, value]) => `${name}: ${(value as { ok?: boolean })?.ok === false ? 'failing' : 'ok'}`)
                .join(', ') || 'none',
            ],
            ['Agents', runtime.agents.length],
            ['Heartbeat', runtime.heartbeatSeconds === null ? 'unknown' : `every ${Math.round(runtime.heartbeatSeconds / 60)} min`],
            ['Default agent', runtime.defaultAgentId ?? 'none'],
          ]}
        />
      ) : (
        <p class="problem">
          The runtime does not answer ({runtime.failure}): {runtime.error}
        </p>
      )}
    </Section>
  );
}

/** 93784 → "1 d 2 h 3 min". */
function uptimeText(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3_600);
  const m = Math.floor((seconds % 3_600) / 60);
  return [d ? `${d} d` : '', h ? `${h} h` : '', `${m} min`].filter(Boolean).join(' ');
}

function ServerSection({ server }: { server: SettingsOverview['server'] }) {
  return (
    <Section id="server-title" title="Server">
      <Facts
        facts={[
          ['Version', server.version],
          ['Status', server.status === 'ok' ? 'OK' : 'Degraded'],
          ['Storage', `${server.storage_mode} (${server.storage_label})`],
          ['Up for', uptimeText(server.uptime_seconds)],
          ['Started', <LocalTime iso={server.started_at} />],
        ]}
      />
      {server.storage_note ? <p>{server.storage_note}</p> : null}
      <ul class="plain-list">
        <li>
          <a href={`${apiBase()}${server.metrics_path}`} target="_blank" rel="noreferrer">
            Metrics ({server.metrics_path})
          </a>
        </li>
        <li>
          <a href={`${apiBase()}${server.openapi_path}`} target="_blank" rel="noreferrer">
            OpenAPI document ({server.openapi_path})
          </a>
        </li>
      </ul>
    </Section>
  );
}
