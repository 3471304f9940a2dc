import { useSignal } from '@preact/signals';
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { loadProjects } from '../board-data';
import {
  createBudget,
  loadPrices,
  loadRollup,
  reprice,
  savePrices,
  spendGroupings,
  spendWindows,
  updateBudget,
  type BudgetCreate,
  type BudgetPatch,
  type ModelPrice,
  type PriceTable,
  type Reprice,
  type Rollup,
  type SpendGrouping,
} from '../costs-data';
import { BURN_DOWNS_KEY, costsRead, type BurnDown } from '../costs-read';
import { BurnDownChart, burnDownColumns, formatAmount, lineName } from '../parts/burn-down-chart';
import { LocalTime } from '../parts/local-time';
import { Problem } from '../parts/problem';
import { refetchNow, useQuery } from '../queries';

/**
 * Costs: each budget's burn-down of its current period (spend, the list-basis shadow, live runs'
 * reservations, the forecast and the budget's line), budgets created and edited in place, spend
 * over a window by agent, department, project, model or workflow type, the price table, and a reprice
 * previewed before it is applied. The spend window and grouping are in the URL.
 */
export function CostsScreen(_props: { path: string }) {
  const read = costsRead();
  const burnDowns = useQuery(read.key, read.topics, read.load);
  const data = burnDowns.data.value;
  return (
    <section aria-labelledby="screen-title" class="screen costs-screen stack">
      <h1 id="screen-title">Costs</h1>
      <section aria-labelledby="budgets-title" class="stack">
        <h2 id="budgets-title">Budgets</h2>
        <Problem text={burnDowns.error.value && `The budgets could not be read: ${burnDowns.error.value}`} />
        {data && data.burn_downs.length === 0 ? <p class="empty-state">No budget yet: create one below.</p> : null}
        {!data && !burnDowns.error.value ? <p class="muted">Reading the budgets…</p> : null}
        <div class="burn-downs">
          {data?.burn_downs.map((b) => (
            <BudgetBurnDown key={b.budget.id} burnDown={b} />
          ))}
        </div>
        <NewBudget />
      </section>
      <Spend />
      <Prices />
      <RepriceWindow />
    </section>
  );
}

const refreshBudgets = () => refetchNow(BURN_DOWNS_KEY);

/** A form's submission: busy while it runs, and its failure, if any, as the form's problem. */
function useSubmission() {
  const busy = useSignal(false);
  const problem = useSignal<string | undefined>(undefined);
  const run = async (failure: string, work: () => Promise<void>) => {
    busy.value = true;
    problem.value = undefined;
    try {
      await work();
    } catch (err) {
      problem.value = `${failure}: ${(err as Error).message}`;
    } finally {
      busy.value = false;
    }
  };
  return { busy, problem, run };
}

const scopeText = (b: BurnDown['budget']) =>
  b.scope === 'fleet' ? 'Fleet' : `${b.scope[0]!.toUpperCase()}${b.scope.slice(1)} ${b.scope_id ?? ''}`;

const pastLineText: Record<BurnDown['line']['action'], string> = {
  warn: 'Past its warn line',
  pause_new_runs: 'Past its line: new runs are paused',
  hard_stop: 'Hard-stopped: new runs are stopped and live ones cancelled',
};

function BudgetBurnDown({ burnDown: b }: { burnDown: BurnDown }) {
  const titleId = `budget-${b.budget.id}`;
  const columns = useMemo(() => burnDownColumns(b, new Date()), [b]);
  const amount = (v: number) => formatAmount(v, b.unit);
  return (
    <section aria-labelledby={titleId} class={`card stack budget-burn-down${b.past_line ? ' past-line' : ''}`}>
      <div class="budget-head">
        <h3 id={titleId}>{b.budget.name}</h3>
        {b.past_line ? <strong class="line-mark">{pastLineText[b.line.action]}</strong> : null}
        {!b.budget.active ? <span class="muted">Inactive</span> : null}
      </div>
      <p class="muted">
        {scopeText(b.budget)} · {b.budget.period} period {b.budget.period_key}
        {b.unit === 'usd' ? ` · counts ${b.budget.basis === 'list' ? 'list prices (subscription shadow included)' : 'billed spend'}` : ''}
      </p>
      <dl class="facts">
        <div>
          <dt>Spent</dt>
          <dd>
            {amount(b.spent)} ({b.budget.pct_of_cap}% of {amount(b.line.amount)})
          </dd>
        </div>
        <div>
          <dt>Reserved by live runs</dt>
          <dd>{amount(b.reserved)}</dd>
        </div>
        <div>
          <dt>{lineName(b.line.action)}</dt>
          <dd>{amount(b.line.amount)}</dd>
        </div>
        <div>
          <dt>Forecast at period end</dt>
          <dd>
            {amount(b.forecast.at_end)} ({amount(b.forecast.pace_per_day)} a day)
          </dd>
        </div>
        {b.forecast.reaches_cap_at ? (
          <div>
            <dt>Reaches its line</dt>
            <dd>
              <LocalTime iso={b.forecast.reaches_cap_at} />
            </dd>
          </div>
        ) : null}
        {b.budget.current_spend.unpriced_runs > 0 ? (
          <div>
            <dt>Unpriced runs (not counted)</dt>
            <dd>{b.budget.current_spend.unpriced_runs}</dd>
          </div>
        ) : null}
      </dl>
      <BurnDownChart burnDown={b} columns={columns} titleId={titleId} />
      {b.stopped_runs.length > 0 ? (
        <div class="stopped-runs">
          <h4>What the hard stop stopped</h4>
          <ul>
            {b.stopped_runs.map((r) => (
              <li key={r.id}>
                <a href={`/runs/${r.id}`}>
                  {r.workflow_type} run {r.id.slice(0, 8)}
                </a>
                {r.agent_id ? ` of ${r.agent_id}` : ''}, cancelled <LocalTime iso={String(r.finished_at)} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <BudgetEditor budget={b.budget} unit={b.unit} />
    </section>
  );
}

const actionNames: Record<BurnDown['line']['action'], string> = { warn: 'Warn', pause_new_runs: 'Pause new runs', hard_stop: 'Hard stop' };

function BudgetEditor({ budget, unit }: { budget: BurnDown['budget']; unit: BurnDown['unit'] }) {
  const open = useSignal(false);
  const { busy, problem, run } = useSubmission();
  const id = `edit-${budget.id}`;
  if (!open.value) {
    return (
      <div class="actions">
        <button type="button" aria-expanded="false" onClick={() => (open.value = true)}>
          Edit {budget.name}
        </button>
      </div>
    );
  }
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const patch: Record<string, unknown> = {};
    const name = String(form.get('name')).trim();
    if (name !== budget.name) patch.name = name;
    const cap = Number(form.get('cap'));
    if (cap !== (unit === 'usd' ? budget.cap_usd : budget.cap_tokens)) patch[unit === 'usd' ? 'cap_usd' : 'cap_tokens'] = cap;
    const action = String(form.get('action'));
    if (action !== budget.action_on_exceed) patch.action_on_exceed = action;
    const basis = String(form.get('basis'));
    if (basis !== budget.basis) patch.basis = basis;
    const active = form.get('active') === 'on';
    if (active !== budget.active) patch.active = active;
    if (Object.keys(patch).length === 0) {
      open.value = false;
      return;
    }
    await run('The budget was not saved', async () => {
      await updateBudget(budget.id, patch as BudgetPatch);
      open.value = false;
      refreshBudgets();
    });
  };
  return (
    <form id={id} class="inline-form" aria-label={`Edit ${budget.name}`} onSubmit={submit}>
      <label class="field">
        Name
        <input name="name" required maxLength={200} defaultValue={budget.name} />
      </label>
      <label class="field">
        Cap ({unit === 'usd' ? 'USD' : 'tokens'})
        <input
          name="cap"
          type="number"
          required
          min={unit === 'usd' ? 0.000001 : 1}
          step={unit === 'usd' ? 'any' : 1}
          defaultValue={String((unit === 'usd' ? budget.cap_usd : budget.cap_tokens) ?? '')}
        />
      </label>
      <ActionField value={budget.action_on_exceed} />
      <BasisField value={budget.basis} />
      <label class="check">
        <input name="active" type="checkbox" defaultChecked={budget.active} />
        Active
      </label>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy.value}>
          Save {budget.name}
        </button>
        <button type="button" onClick={() => (open.value = false)}>
          Cancel
        </button>
      </div>
      <Problem text={problem.value} />
    </form>
  );
}

function ActionField({ value }: { value?: string }) {
  return (
    <label class="field">
      When spend reaches the cap
      <select name="action">
        {Object.entries(actionNames).map(([action, name]) => (
          <option key={action} value={action} selected={action === (value ?? 'warn')}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}

function BasisField({ value }: { value?: string }) {
  return (
    <label class="field">
      Subscription runs count
      <select name="basis">
        <option value="billed" selected={value !== 'list'}>
          Nothing (billed spend)
        </option>
        <option value="list" selected={value === 'list'}>
          Their list price (shadow)
        </option>
      </select>
    </label>
  );
}

function NewBudget() {
  const { busy, problem, run } = useSubmission();
  const scope = useSignal('fleet');
  const submit = async (event: Event) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const cap = Number(form.get('cap'));
    const body = {
      name: String(form.get('name')).trim(),
      scope: String(form.get('scope')),
      ...(scope.value === 'fleet' ? {} : { scope_id: String(form.get('scope_id')).trim() }),
      period: String(form.get('period')),
      ...(form.get('unit') === 'tokens' ? { cap_tokens: cap } : { cap_usd: cap }),
      action_on_exceed: String(form.get('action')),
      basis: String(form.get('basis')),
    };
    await run('The budget was not created', async () => {
      await createBudget(body as BudgetCreate);
      formElement.reset();
      scope.value = 'fleet';
      refreshBudgets();
    });
  };
  return (
    <div class="card stack">
      <h3 id="new-budget-title">New budget</h3>
      <form class="inline-form" aria-labelledby="new-budget-title" onSubmit={submit}>
        <label class="field">
          Name
          <input name="name" required maxLength={200} />
        </label>
        <label class="field">
          Scope
          <select name="scope" value={scope.value} onChange={(e) => (scope.value = (e.currentTarget as HTMLSelectElement).value)}>
            <option value="fleet">Fleet</option>
            <option value="agent">Agent</option>
            <option value="department">Department</option>
            <option value="project">Project</option>
          </select>
        </label>
        {scope.value !== 'fleet' ? (
          <label class="field">
            {scope.value === 'agent' ? 'Agent id' : scope.value === 'department' ? 'Department id' : 'Project id'}
            <input name="scope_id" required maxLength={200} />
          </label>
        ) : null}
        <label class="field">
          Period
          <select name="period">
            <option value="daily">Daily</option>
            <option value="weekly">Weekly</option>
            <option value="monthly" selected>
              Monthly
            </option>
          </select>
        </label>
        <label class="field">
          Cap
          <input name="cap" type="number" required min={0.000001} step="any" />
        </label>
        <label class="field">
          Cap in
          <select name="unit">
            <option value="usd">USD</option>
            <option value="tokens">Tokens</option>
          </select>
        </label>
        <ActionField />
        <BasisField />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy.value}>
            Create budget
          </button>
        </div>
        <Problem text={problem.value} />
      </form>
    </div>
  );
}

const groupingNames: Record<SpendGrouping, string> = {
  agent: 'Agent',
  department: 'Department',
  project: 'Project',
  model: 'Model',
  workflow_type: 'Workflow type',
};

function Spend() {
  const { query, path, route } = useLocation();
  const grouping = (spendGroupings as readonly string[]).includes(query.group ?? '') ? (query.group as SpendGrouping) : 'agent';
  const days = (spendWindows as readonly number[]).includes(Number(query.days)) ? Number(query.days) : 7;
  const setQuery = (changes: Record<string, string>) => {
    const next = new URLSearchParams({ ...query, ...changes });
    route(`${path}?${next.toString()}`, true);
  };
  const rollup = useQuery(`costs:rollup:${grouping}:${days}`, ['runs'], () => loadRollup(grouping, days));
  const projects = useQuery('projects', ['projects'], loadProjects);
  const nameOf = (key: string) => (grouping === 'project' ? (projects.data.value?.find((p) => p.id === key)?.name ?? key) : key);
  const data = rollup.data.value;
  return (
    <section aria-labelledby="spend-title" class="stack">
      <h2 id="spend-title">Spend</h2>
      <div class="inline-form">
        <label class="field inline">
          Window
          <select value={String(days)} onChange={(e) => setQuery({ days: (e.currentTarget as HTMLSelectElement).value })}>
            {spendWindows.map((d) => (
              <option key={d} value={String(d)}>
                Last {d} days
              </option>
            ))}
          </select>
        </label>
        <label class="field inline">
          Group by
          <select value={grouping} onChange={(e) => setQuery({ group: (e.currentTarget as HTMLSelectElement).value })}>
            {spendGroupings.map((g) => (
              <option key={g} value={g}>
                {groupingNames[g]}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Problem text={rollup.error.value && `Spend could not be read: ${rollup.error.value}`} />
      {data ? (
        <SpendFigures rollup={data} nameOf={nameOf} caption={`Spend by ${groupingNames[grouping].toLowerCase()}, last ${days} days`} />
      ) : null}
    </section>
  );
}

function SpendFigures({ rollup, nameOf, caption }: { rollup: Rollup; nameOf: (key: string) => string; caption: string }) {
  const bars = useRef<HTMLUListElement>(null);
  const top = Math.max(...rollup.groups.map((g) => g.cost), 0);
  // bar lengths through the CSSOM (the CSP allows no style attribute)
  useLayoutEffect(() => {
    bars.current?.querySelectorAll<HTMLElement>('[data-share]').forEach((bar) => bar.style.setProperty('--share', bar.dataset.share!));
  }, [rollup]);
  const usd = (v: number) => formatAmount(v, 'usd');
  return (
    <>
      <p>
        {usd(rollup.total_window)} billed over the window
        {rollup.subscription_cost > 0 ? `, and ${usd(rollup.subscription_cost)} of subscription runs at list price (not billed)` : ''}.
      </p>
      {rollup.groups.length > 0 ? (
        <ul class="spend-bars" ref={bars} aria-hidden="true">
          {rollup.groups.map((g) => (
            <li key={g.key}>
              <span>{nameOf(g.key)}</span>
              <span class="spend-fill" data-share={String(top > 0 ? Math.round((g.cost / top) * 1000) / 10 : 0)} />
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">No runs in this window.</p>
      )}
      <div class="table-scroll">
        <table class="figures">
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Billed</th>
              <th scope="col">Runs</th>
              <th scope="col">Input tokens</th>
              <th scope="col">Output tokens</th>
            </tr>
          </thead>
          <tbody>
            {rollup.groups.map((g) => (
              <tr key={g.key}>
                <th scope="row">{nameOf(g.key)}</th>
                <td>{usd(g.cost)}</td>
                <td>{g.runs}</td>
                <td>{g.tokens.input.toLocaleString('en-US')}</td>
                <td>{g.tokens.output.toLocaleString('en-US')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rollup.unpriced_runs > 0 ? (
        <div class="unpriced" aria-labelledby="unpriced-title">
          <h3 id="unpriced-title">
            {rollup.unpriced_runs} unpriced {rollup.unpriced_runs === 1 ? 'run' : 'runs'}
          </h3>
          <p>
            {(rollup.unpriced_tokens.input + rollup.unpriced_tokens.output).toLocaleString('en-US')} tokens whose model has no price: not
            counted in the figures above, never as $0. Price their models below, then reprice the window.
          </p>
          <ul>
            {rollup.unpriced_run_list.map((r) => (
              <li key={r.id}>
                <a href={`/runs/${r.id}`}>
                  {r.workflow_type} run {r.id.slice(0, 8)}
                </a>{' '}
                ({r.model_id ?? 'no model'}, {((r.input_tokens ?? 0) + (r.output_tokens ?? 0)).toLocaleString('en-US')} tokens)
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}

/** A price as the editor holds it: text fields, as typed. */
interface PriceDraft {
  effective_from: string;
  input: string;
  output: string;
  cached: string;
  cacheWrite: string;
  billing: string;
}
interface ModelDraft {
  model_id: string;
  source: 'database' | 'file' | 'new';
  /** Changed here: saved to the database even if the file priced it. */
  touched: boolean;
  prices: PriceDraft[];
}

const draftOf = (table: PriceTable): ModelDraft[] =>
  table.models.map((m) => ({
    model_id: m.model_id,
    source: m.source,
    touched: false,
    prices: m.prices.map((p) => ({
      effective_from: p.effective_from ?? '',
      input: String(p.input_per_million),
      output: String(p.output_per_million),
      cached: p.cached_input_per_million === undefined ? '' : String(p.cached_input_per_million),
      cacheWrite: p.cache_write_per_million === undefined ? '' : String(p.cache_write_per_million),
      billing: p.billing ?? '',
    })),
  }));

function priceOfDraft(d: PriceDraft): ModelPrice {
  const price: ModelPrice = { input_per_million: Number(d.input), output_per_million: Number(d.output) };
  if (d.cached !== '') price.cached_input_per_million = Number(d.cached);
  if (d.cacheWrite !== '') price.cache_write_per_million = Number(d.cacheWrite);
  if (d.effective_from !== '') price.effective_from = d.effective_from;
  if (d.billing === 'metered' || d.billing === 'subscription') price.billing = d.billing;
  return price;
}

const priceFields: Array<[keyof PriceDraft, string, 'date' | 'number']> = [
  ['effective_from', 'Effective from', 'date'],
  ['input', 'Input $/M', 'number'],
  ['output', 'Output $/M', 'number'],
  ['cached', 'Cached input $/M', 'number'],
  ['cacheWrite', 'Cache write $/M', 'number'],
];

function Prices() {
  const table = useQuery('costs:prices', [], loadPrices);
  const draft = useSignal<ModelDraft[] | undefined>(undefined);
  const newModel = useSignal('');
  const { busy, problem, run } = useSubmission();
  const saved = useSignal<string | undefined>(undefined);
  const models = draft.value ?? (table.data.value ? draftOf(table.data.value) : undefined);
  const edit = (change: (models: ModelDraft[]) => void) => {
    const next = structuredClone(models ?? []);
    change(next);
    draft.value = next;
    saved.value = undefined;
  };
  const save = async (event: Event) => {
    event.preventDefault();
    if (!models) return;
    await run('The price table was not saved', async () => {
      // the file's models stay the file's unless changed here
      const prices = Object.fromEntries(
        models.filter((m) => m.source !== 'file' || m.touched).map((m) => [m.model_id, m.prices.map(priceOfDraft)]),
      );
      const answer = await savePrices(prices);
      table.data.value = answer;
      draft.value = undefined;
      saved.value = `Saved: ${answer.models.length} models priced. Usage already priced keeps its cost until a reprice.`;
    });
  };
  return (
    <section aria-labelledby="prices-title" class="stack">
      <h2 id="prices-title">Prices</h2>
      <Problem text={table.error.value && `The price table could not be read: ${table.error.value}`} />
      {models ? (
        <form class="stack" aria-labelledby="prices-title" onSubmit={save}>
          {models.length === 0 ? <p class="muted">No model is priced: every run's tokens stay unpriced.</p> : null}
          {models.map((m, mi) => (
            <fieldset key={m.model_id} class="card stack">
              <legend>
                {m.model_id}{' '}
                <span class="muted">
                  ({m.source === 'file' && !m.touched ? 'from the prices file' : m.source === 'new' ? 'new' : 'stored'})
                </span>
              </legend>
              {m.prices.map((p, pi) => (
                <div class="field-row" key={pi}>
                  {priceFields.map(([field, name, type]) => (
                    <label class="field" key={field}>
                      {name}
                      <input
                        type={type}
                        min={type === 'number' ? 0 : undefined}
                        step={type === 'number' ? 'any' : undefined}
                        required={field === 'input' || field === 'output'}
                        aria-label={`${name} of ${m.model_id}, price ${pi + 1}`}
                        value={p[field]}
                        onInput={(e) =>
                          edit((all) => {
                            all[mi]!.prices[pi]![field] = (e.currentTarget as HTMLInputElement).value;
                            all[mi]!.touched = true;
                          })
                        }
                      />
                    </label>
                  ))}
                  <button
                    type="button"
                    aria-label={`Remove price ${pi + 1} of ${m.model_id}`}
                    onClick={() =>
                      edit((all) => {
                        all[mi]!.prices.splice(pi, 1);
                        all[mi]!.touched = true;
                        if (all[mi]!.prices.length === 0) all.splice(mi, 1);
                      })
                    }
                  >
                    Remove
                  </button>
                </div>
              ))}
              <button
                type="button"
                onClick={() =>
                  edit((all) => {
                    all[mi]!.prices.push({
                      effective_from: new Date().toISOString().slice(0, 10),
                      input: '',
                      output: '',
                      cached: '',
                      cacheWrite: '',
                      billing: '',
                    });
                    all[mi]!.touched = true;
                  })
                }
              >
                Add a price to {m.model_id}
              </button>
            </fieldset>
          ))}
          <div class="inline-form">
            <label class="field inline">
              New model
              <input
                value={newModel.value}
                maxLength={200}
                onInput={(e) => (newModel.value = (e.currentTarget as HTMLInputElement).value)}
              />
            </label>
            <button
              type="button"
              disabled={!newModel.value.trim() || models.some((m) => m.model_id === newModel.value.trim())}
              onClick={() => {
                const id = newModel.value.trim();
                edit((all) =>
                  all.push({
                    model_id: id,
                    source: 'new',
                    touched: true,
                    prices: [{ effective_from: '', input: '', output: '', cached: '', cacheWrite: '', billing: '' }],
                  }),
                );
                newModel.value = '';
              }}
            >
              Add model
            </button>
          </div>
          <div class="actions">
            <button type="submit" class="primary" disabled={busy.value || !draft.value}>
              Save prices
            </button>
          </div>
          <Problem text={problem.value} />
          {saved.value ? <p role="status">{saved.value}</p> : null}
        </form>
      ) : null}
    </section>
  );
}

const utcDay = (at: Date) => at.toISOString().slice(0, 10);

function RepriceWindow() {
  const today = new Date();
  const from = useSignal(utcDay(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1))));
  const to = useSignal(utcDay(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1))));
  const preview = useSignal<Reprice | undefined>(undefined);
  const applied = useSignal<Reprice | undefined>(undefined);
  const { busy, problem, run: submit } = useSubmission();
  const run = (dryRun: boolean) =>
    submit(dryRun ? 'The preview failed' : 'The reprice failed', async () => {
      const answer = await reprice(from.value, to.value, dryRun);
      if (dryRun) {
        preview.value = answer;
        applied.value = undefined;
      } else {
        applied.value = answer;
        preview.value = undefined;
        // the stream says so too (run-updated), but the operator's own action shows at once
        refreshBudgets();
        refetchNow('costs:rollup');
      }
    });
  const usd = (v: number) => formatAmount(v, 'usd');
  const window = (field: typeof from, name: string) => (
    <label class="field inline">
      {name}
      <input
        type="date"
        required
        value={field.value}
        onInput={(e) => {
          field.value = (e.currentTarget as HTMLInputElement).value;
          preview.value = undefined;
        }}
      />
    </label>
  );
  const p = preview.value;
  return (
    <section aria-labelledby="reprice-title" class="stack">
      <h2 id="reprice-title">Reprice</h2>
      <p class="muted">
        Recompute the cost of a window’s runs that the price table priced, or could not price, at the prices now in effect. A cost an agent
        reported is never changed.
      </p>
      <form
        class="inline-form"
        aria-labelledby="reprice-title"
        onSubmit={(e) => {
          e.preventDefault();
          void run(true);
        }}
      >
        {window(from, 'From')}
        {window(to, 'To (not included)')}
        <button type="submit" disabled={busy.value}>
          Preview reprice
        </button>
      </form>
      <Problem text={problem.value} />
      {p ? (
        <div class="card stack" role="region" aria-label="Reprice preview">
          <p>
            {p.changed} of {p.examined} runs would change: {usd(p.cost_before)} → {usd(p.cost_after)} (
            {p.cost_after >= p.cost_before ? '+' : '−'}
            {usd(Math.abs(p.cost_after - p.cost_before))}){p.unpriced_before > 0 ? `; ${p.unpriced_before} of them unpriced until now` : ''}
            .{p.without_price > 0 ? ` ${p.without_price} runs have no price now and keep their cost.` : ''}
          </p>
          {p.changes.length > 0 ? (
            <div class="table-scroll">
              <table class="figures">
                <caption>Largest changes</caption>
                <thead>
                  <tr>
                    <th scope="col">Run</th>
                    <th scope="col">Model</th>
                    <th scope="col">Before</th>
                    <th scope="col">After</th>
                  </tr>
                </thead>
                <tbody>
                  {p.changes.map((c) => (
                    <tr key={c.id}>
                      <th scope="row">
                        <a href={`/runs/${c.id}`}>
                          {c.workflow_type} {c.id.slice(0, 8)}
                        </a>
                      </th>
                      <td>{c.model_id}</td>
                      <td>{c.cost_before === null ? 'unpriced' : usd(c.cost_before)}</td>
                      <td>{usd(c.cost_after)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
          <div class="actions">
            <button type="button" class="primary" disabled={busy.value || p.changed === 0} onClick={() => void run(false)}>
              Apply reprice
            </button>
          </div>
        </div>
      ) : null}
      {applied.value ? (
        <p role="status">
          Repriced {applied.value.changed} runs: {usd(applied.value.cost_before)} → {usd(applied.value.cost_after)}.
        </p>
      ) : null}
    </section>
  );
}
