import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import uPlotCss from 'uplot/dist/uPlot.min.css' with { type: 'text' };
import type { BurnDown } from '../costs-read';

/**
 * A budget's burn-down drawn with uPlot, and the same figures as a table for screen readers (and
 * for anyone who wants the numbers): both are made from burnDownColumns, so the table is the chart.
 */

type SeriesKey = 'billed' | 'list' | 'reservedBase' | 'reserved' | 'forecast' | 'line';

export interface BurnDownSeries {
  key: SeriesKey;
  label: string;
  values: Array<number | null>;
}

export interface BurnDownColumns {
  /** Seconds since the epoch: the period's start, the end of each day so far (today: now), the period's end. */
  x: number[];
  /** What each x is, for the table's first column. */
  rowLabels: string[];
  series: BurnDownSeries[];
}

const lineNames: Record<BurnDown['line']['action'], string> = {
  warn: 'Warn line',
  pause_new_runs: 'Pause line',
  hard_stop: 'Hard-stop line',
};
export const lineName = (action: BurnDown['line']['action']) => lineNames[action];

/** The chart's columns: spend to date, the list-basis shadow where it differs, the reservations above spend from now on, the forecast, the line. */
export function burnDownColumns(b: BurnDown, now: Date): BurnDownColumns {
  const start = Date.parse(b.window_start);
  const end = Date.parse(b.window_end);
  const nowMs = Math.min(Math.max(now.getTime(), start), end);
  const x = [start];
  const rowLabels = ['Period start'];
  const billed: Array<number | null> = [0];
  const list: Array<number | null> = [0];
  b.days.forEach((day, i) => {
    const dayEnd = Date.parse(`${day.date}T00:00:00Z`) + 86_400_000;
    const last = i === b.days.length - 1;
    x.push(last ? Math.max(nowMs, x[x.length - 1]! + 1) : dayEnd);
    rowLabels.push(last ? `${day.date} (now)` : day.date);
    billed.push(day.billed);
    list.push(day.list);
  });
  x.push(Math.max(end, x[x.length - 1]! + 1));
  rowLabels.push('Period end');
  billed.push(null);
  list.push(null);
  const fromNow = (atNow: number, atEnd: number) => x.map((_, i) => (i === x.length - 2 ? atNow : i === x.length - 1 ? atEnd : null));
  const series: BurnDownSeries[] = [{ key: 'billed', label: b.unit === 'usd' ? 'Billed spend' : 'Tokens', values: billed }];
  if (b.days.some((d) => d.list !== d.billed))
    series.push({ key: 'list', label: 'List-basis spend (with subscription shadow)', values: list });
  if (b.reserved > 0) {
    series.push({ key: 'reservedBase', label: 'Spend counted', values: fromNow(b.spent, b.spent) });
    series.push({
      key: 'reserved',
      label: 'Spend and live runs’ reservations',
      values: fromNow(b.spent + b.reserved, b.spent + b.reserved),
    });
  }
  series.push({ key: 'forecast', label: 'Forecast', values: fromNow(b.spent, b.forecast.at_end) });
  series.push({ key: 'line', label: lineName(b.line.action), values: x.map(() => b.line.amount) });
  return { x: x.map((ms) => ms / 1000), rowLabels, series };
}

export function formatAmount(value: number, unit: BurnDown['unit']): string {
  return unit === 'usd'
    ? value.toLocaleString('en-US', {
        style: 'currency',
        currency: 'USD',
        maximumFractionDigits: value !== 0 && Math.abs(value) < 1 ? 4 : 2,
      })
    : `${Math.round(value).toLocaleString('en-US')} tokens`;
}

let uPlotStyled = false;

/**
 * uPlot's own stylesheet, taken into the page when the first chart is drawn. Imported as text so it
 * travels in this lazily loaded chunk: esbuild adds every stylesheet a bundle imports, lazy chunks'
 * included, to the initial one. A constructed stylesheet is CSSOM, as uPlot's element.style is,
 * which the CSP allows (it forbids style attributes and <style> elements).
 */
function adoptUplotStyles(): void {
  if (uPlotStyled) return;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(uPlotCss);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  uPlotStyled = true;
}

/** The colour of a legend key as the stylesheet resolves it for the current theme. */
function colourOf(root: HTMLElement, key: SeriesKey): string {
  const swatch = root.querySelector<HTMLElement>(`.swatch-${key}`);
  return swatch ? getComputedStyle(swatch).color : 'currentColor';
}

const translucent = (rgb: string, alpha: number) => rgb.replace(/^rgb\((.*)\)$/, `rgba($1, ${alpha})`);

/** Changes whenever the theme does (the operator's choice on <html>, or the system's): colours are resolved again. */
function useThemeVersion(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bump = () => setVersion((v) => v + 1);
    const chosen = new MutationObserver(bump);
    chosen.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const system = matchMedia('(prefers-color-scheme: dark)');
    system.addEventListener('change', bump);
    return () => {
      chosen.disconnect();
      system.removeEventListener('change', bump);
    };
  }, []);
  return version;
}

export function BurnDownChart({ burnDown, columns, titleId }: { burnDown: BurnDown; columns: BurnDownColumns; titleId: string }) {
  const figure = useRef<HTMLElement>(null);
  const theme = useThemeVersion();
  const plotHost = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    adoptUplotStyles();
    const root = figure.current!;
    const host = plotHost.current!;
    const text = getComputedStyle(root).color;
    const grid = translucent(text, 0.15);
    const idx = (key: SeriesKey) => columns.series.findIndex((s) => s.key === key) + 1;
    const unit = burnDown.unit;
    const opts: uPlot.Options = {
      width: host.clientWidth,
      height: 220,
      legend: { show: false },
      scales: { x: { time: true } },
      axes: [
        { stroke: text, grid: { stroke: grid }, ticks: { stroke: grid } },
        {
          stroke: text,
          grid: { stroke: grid },
          ticks: { stroke: grid },
          size: 70,
          values: (_u, values) => values.map((v) => (unit === 'usd' ? `$${v}` : `${v}`)),
        },
      ],
      series: [
        {},
        ...columns.series.map((s) => ({
          label: s.label,
          // the band's lower edge is drawn by the spend itself: its own line stays invisible
          stroke: s.key === 'reservedBase' ? 'transparent' : colourOf(root, s.key),
          width: s.key === 'billed' ? 2 : 1.5,
          dash: s.key === 'forecast' || s.key === 'line' ? [6, 4] : undefined,
          points: { show: false },
          spanGaps: false,
        })),
      ],
      bands:
        idx('reserved') > 0
          ? [{ series: [idx('reserved'), idx('reservedBase')] as [number, number], fill: translucent(colourOf(root, 'reserved'), 0.3) }]
          : [],
    };
    const plot = new uPlot(opts, [columns.x, ...columns.series.map((s) => s.values)] as uPlot.AlignedData, host);
    const resize = new ResizeObserver(() => plot.setSize({ width: host.clientWidth, height: 220 }));
    resize.observe(host);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [columns, burnDown.unit, theme]);
  return (
    <figure class="burn-down" ref={figure} aria-labelledby={titleId}>
      <div ref={plotHost} aria-hidden="true" />
      <ul class="burn-down-keys" aria-label="Key">
        {columns.series
          .filter((s) => s.key !== 'reservedBase')
          .map((s) => (
            <li key={s.key}>
              <span class={`swatch swatch-${s.key}`} aria-hidden="true" />
              {s.label}
            </li>
          ))}
      </ul>
      {/* a table grows to its content whatever its width: the visually hidden box is the div around it */}
      <div class="visually-hidden">
        <table>
          <caption>Burn-down figures</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              {columns.series
                .filter((s) => s.key !== 'reservedBase')
                .map((s) => (
                  <th scope="col" key={s.key}>
                    {s.label}
                  </th>
                ))}
            </tr>
          </thead>
          <tbody>
            {columns.x.map((_, row) => (
              <tr key={row}>
                <th scope="row">{columns.rowLabels[row]}</th>
                {columns.series
                  .filter((s) => s.key !== 'reservedBase')
                  .map((s) => (
                    <td key={s.key}>{s.values[row] === null ? '' : formatAmount(s.values[row]!, burnDown.unit)}</td>
                  ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
