import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import {
  agentTopics,
  createToken,
  loadRoster,
  loadTokens,
  mcpRegistrationLine,
  revokeToken,
  ROSTER_KEY,
  setBilling,
  setCap,
  tokenScopes,
  TOKENS_KEY,
  type AgentToken,
  type BillingMode,
  type CreatedToken,
  type RosterAgent,
  type TokenScope,
} from '../agents-data';
import { resumeAgentDispatch } from '../inbox-actions';
import { ActionOutcome, copyToClipboard, useInPlaceAction } from '../parts/in-place-action';
import { LocalTime } from '../parts/local-time';
import { Problem } from '../parts/problem';
import { refetchNow, useQuery } from '../queries';

/** The fleet's agents (liveness, live runs against the cap, dispatch pause, billing) and their tokens, each acted on in place. */
export function AgentsScreen(_props: { path: string }) {
  const roster = useQuery(ROSTER_KEY, agentTopics, loadRoster);
  const agents = roster.data.value?.agents;
  return (
    <section aria-labelledby="screen-title" class="screen agents-screen">
      <h1 id="screen-title">Agents</h1>
      <section aria-labelledby="roster-title" class="stack">
        <h2 id="roster-title">Roster</h2>
        <Problem text={roster.error.value && `The roster could not be read: ${roster.error.value}`} />
        {!agents ? (
          <p class="muted">Reading the roster…</p>
        ) : agents.length === 0 ? (
          <p class="empty-state">
            No agent yet: an agent appears once it sends a heartbeat, holds a run or has a cap, a pause or a profile.
          </p>
        ) : (
          <ul class="agent-list" aria-labelledby="roster-title">
            {agents.map((agent) => (
              <AgentCard key={agent.agent_id} agent={agent} />
            ))}
          </ul>
        )}
      </section>
      <TokenSection agentIds={agents?.map((a) => a.agent_id) ?? []} />
    </section>
  );
}

const livenessWords: Record<RosterAgent['status'], string> = { online: 'Online', offline: 'Offline', error: 'Error' };
const billingWords: Record<BillingMode | 'none', string> = {
  none: 'Set by its model’s price',
  metered: 'Metered',
  subscription: 'Subscription',
};

const refetchRoster = () => refetchNow(ROSTER_KEY);
const refetchTokens = () => refetchNow(TOKENS_KEY);

function AgentCard({ agent }: { agent: RosterAgent }) {
  const action = useInPlaceAction();
  const { busy, run } = action;
  const titleId = `agent-${agent.agent_id.replace(/[^a-zA-Z0-9_-]/g, '-')}`;
  const liveRuns =
    agent.max_concurrent_runs === null ? `${agent.live_runs} (no cap)` : `${agent.live_runs} of ${agent.max_concurrent_runs}`;
  return (
    <li class={`agent-card liveness-${agent.status}`} aria-labelledby={titleId}>
      <div class="agent-head">
        <h3 id={titleId}>{agent.agent_id}</h3>
        <span class="liveness">{livenessWords[agent.status]}</span>
      </div>
      <dl class="facts">
        <div>
          <dt>Live runs</dt>
          <dd>{liveRuns}</dd>
        </div>
        <div>
          <dt>Dispatch</dt>
          <dd>
            {agent.dispatch_paused_until ? (
              <>
                Paused until <LocalTime iso={agent.dispatch_paused_until} />
                {agent.pause_reason ? `: ${agent.pause_reason}` : ''}
              </>
            ) : (
              'Flowing'
            )}
          </dd>
        </div>
        <div>
          <dt>Billing</dt>
          <dd>{billingWords[agent.billing ?? 'none']}</dd>
        </div>
        <div>
          <dt>Last heartbeat</dt>
          <dd>{agent.last_seen_at ? <LocalTime iso={agent.last_seen_at} /> : 'Never'}</dd>
        </div>
        {agent.reported_status && agent.reported_status !== agent.status ? (
          <div>
            <dt>Last reported</dt>
            <dd>{livenessWords[agent.reported_status]}</dd>
          </div>
        ) : null}
      </dl>
      <div class="agent-controls">
        {agent.dispatch_paused_until ? (
          <button
            type="button"
            class="primary"
            disabled={busy.value}
            onClick={() => void run(async () => void (await resumeAgentDispatch(agent.agent_id)), refetchRoster)}
          >
            Resume dispatch
          </button>
        ) : null}
        <form
          class="inline-form"
          aria-label={`Cap of ${agent.agent_id}`}
          onSubmit={(e) => {
            e.preventDefault();
            const raw = String(new FormData(e.currentTarget as HTMLFormElement).get('cap') ?? '').trim();
            void run(async () => void (await setCap(agent.agent_id, raw === '' ? null : Number(raw))), refetchRoster);
          }}
        >
          <label class="field inline">
            <span>Cap on live runs</span>
            <input
              name="cap"
              type="number"
              min="1"
              step="1"
              placeholder="none"
              defaultValue={agent.max_concurrent_runs === null ? '' : String(agent.max_concurrent_runs)}
              key={String(agent.max_concurrent_runs)}
            />
          </label>
          <button type="submit" disabled={busy.value}>
            Set cap
          </button>
        </form>
        <form
          class="inline-form"
          aria-label={`Billing of ${agent.agent_id}`}
          onSubmit={(e) => {
            e.preventDefault();
            const mode = String(new FormData(e.currentTarget as HTMLFormElement).get('billing') ?? '');
            void run(async () => void (await setBilling(agent.agent_id, mode === '' ? null : (mode as BillingMode))), refetchRoster);
          }}
        >
          <label class="field inline">
            <span>Billing</span>
            {/* uncontrolled (a refetch never undoes a choice not yet saved); a new mode from the server remounts it */}
            <select name="billing" key={agent.billing ?? 'none'}>
              <option value="" selected={agent.billing === null}>
                {billingWords.none}
              </option>
              <option value="metered" selected={agent.billing === 'metered'}>
                {billingWords.metered}
              </option>
              <option value="subscription" selected={agent.billing === 'subscription'}>
                {billingWords.subscription}
              </option>
            </select>
          </label>
          <button type="submit" disabled={busy.value}>
            Set billing
          </button>
        </form>
      </div>
      <ActionOutcome action={action} />
    </li>
  );
}

function TokenSection({ agentIds }: { agentIds: string[] }) {
  const tokens = useQuery(TOKENS_KEY, agentTopics, loadTokens);
  const creating = useSignal(false);
  const list = tokens.data.value?.tokens;
  return (
    <section aria-labelledby="tokens-title" class="stack">
      <div class="section-head">
        <h2 id="tokens-title">Agent tokens</h2>
        <button type="button" class="primary" onClick={() => (creating.value = true)}>
          Create token
        </button>
      </div>
      <Problem text={tokens.error.value && `The tokens could not be read: ${tokens.error.value}`} />
      {!list ? (
        <p class="muted">Reading the tokens…</p>
      ) : list.length === 0 ? (
        <p class="muted">No token yet. An agent with a token of its own reaches the API (and the MCP tool server) as itself.</p>
      ) : (
        <ul class="token-list" aria-labelledby="tokens-title">
          {list.map((token) => (
            <TokenItem key={token.id} token={token} />
          ))}
        </ul>
      )}
      {creating.value ? <CreateTokenDialog agentIds={agentIds} onClose={() => (creating.value = false)} /> : null}
    </section>
  );
}

function TokenItem({ token }: { token: AgentToken }) {
  const action = useInPlaceAction();
  const { busy, run } = action;
  const titleId = `token-${token.id}`;
  const name = token.label ?? `Token of ${token.agent_id}`;
  return (
    <li class={`token-item token-${token.status}`} aria-labelledby={titleId}>
      <div class="agent-head">
        <h3 id={titleId}>{name}</h3>
        <span class="token-status">{token.status}</span>
      </div>
      <dl class="facts">
        <div>
          <dt>Agent</dt>
          <dd>{token.agent_id}</dd>
        </div>
        <div>
          <dt>Scopes</dt>
          <dd>{token.scopes.join(', ')}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{token.expires_at ? <LocalTime iso={token.expires_at} /> : 'Never'}</dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>{token.last_used_at ? <LocalTime iso={token.last_used_at} /> : 'Never'}</dd>
        </div>
        {token.revoked_at ? (
          <div>
            <dt>Revoked</dt>
            <dd>
              <LocalTime iso={token.revoked_at} />
            </dd>
          </div>
        ) : null}
      </dl>
      {token.status === 'active' ? (
        <div class="actions">
          <button
            type="button"
            class="danger"
            disabled={busy.value}
            onClick={() => {
              if (!confirm(`Revoke “${name}”? ${token.agent_id} is refused with it from its next request on.`)) return;
              void run(async () => void (await revokeToken(token.id)), refetchTokens);
            }}
          >
            Revoke
          </button>
        </div>
      ) : null}
      <ActionOutcome action={action} />
    </li>
  );
}

/**
 * "Create token": the form, then the token shown once with its copy buttons. The token lives in this
 * dialog's own signal only, dropped when the dialog closes: never cached, put in a URL or logged.
 */
function CreateTokenDialog({ agentIds, onClose }: { agentIds: string[]; onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const created = useSignal<CreatedToken | undefined>(undefined);
  const creating = useInPlaceAction();
  const copying = useInPlaceAction();
  const { busy, problem, run } = creating;
  useEffect(() => {
    dialog.current?.showModal();
    return () => {
      created.value = undefined;
    };
  }, []);
  const copy = (text: string, what: string) => copyToClipboard(copying, text, what);
  const close = () => {
    created.value = undefined;
    dialog.current?.close();
  };
  const token = created.value;
  return (
    <dialog ref={dialog} class="dialog" aria-labelledby="create-token-title" onClose={onClose}>
      <h2 id="create-token-title">{token ? 'Token created' : 'Create token'}</h2>
      {token ? (
        <div class="stack">
          <p>
            The token of <strong>{token.agent_id}</strong>. Copy it now: it is shown this once and never again.
          </p>
          <code class="secret">{token.token}</code>
          <div class="actions">
            <button type="button" class="primary" onClick={() => void copy(token.token, 'Token')}>
              Copy token
            </button>
          </div>
          <p>Registers the MCP tool server as this agent (Claude Code; docs/mcp.md has the other clients):</p>
          <code class="secret">{mcpRegistrationLine(token.token)}</code>
          <div class="actions">
            <button type="button" onClick={() => void copy(mcpRegistrationLine(token.token), 'Registration line')}>
              Copy registration line
            </button>
            <button type="button" onClick={close}>
              Done
            </button>
          </div>
          <ActionOutcome action={copying} />
        </div>
      ) : (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            const form = new FormData(e.currentTarget as HTMLFormElement);
            const label = String(form.get('label') ?? '').trim();
            const expires = String(form.get('expires') ?? '');
            const scopes = form.getAll('scopes').map(String) as TokenScope[];
            void run(async () => {
              created.value = await createToken({
                agent_id: String(form.get('agent') ?? '').trim(),
                ...(label ? { label } : {}),
                // the end of the chosen day, in the operator's time zone
                ...(expires ? { expires_at: new Date(`${expires}T23:59:59`).toISOString() } : {}),
                scopes,
              });
            }, refetchTokens);
          }}
        >
          <label class="field">
            <span>Agent</span>
            <input name="agent" required list="token-agents" autoComplete="off" />
            <datalist id="token-agents">
              {agentIds.map((id) => (
                <option key={id} value={id} />
              ))}
            </datalist>
          </label>
          <label class="field">
            <span>Label (optional)</span>
            <input name="label" maxLength={200} />
          </label>
          <label class="field">
            <span>Expires on (optional)</span>
            <input name="expires" type="date" />
          </label>
          <fieldset class="check-group">
            <legend>Scopes</legend>
            {tokenScopes.map(({ scope, help }) => (
              <label key={scope} class="check">
                <input type="checkbox" name="scopes" value={scope} defaultChecked={scope === 'agent'} />
                <span>{help}</span>
              </label>
            ))}
          </fieldset>
          <Problem text={problem.value} />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy.value}>
              Create token
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
