// The window the summary, the trend chart and the export read: the last 7, 30 or 90 days, or a custom range of
// local days. `to` is exclusive, as the API takes it (docs/analytics.md "The window").
import { useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { BrandOptions } from '../../ui.tsx';

const DAY = 86_400_000;

export interface Window {
  from: string;
  to: string;
  brand: string;
}

type Preset = '7' | '30' | '90' | 'custom';

function lastDays(days: number): { from: string; to: string } {
  // Rounded to the minute so that re-rendering never changes the window (and never reloads it).
  const to = Math.ceil(Date.now() / 60_000) * 60_000;
  return { from: new Date(to - days * DAY).toISOString(), to: new Date(to).toISOString() };
}

function localDay(date: string, next: boolean): string {
  const day = new Date(`${date}T00:00:00`);
  if (next) day.setDate(day.getDate() + 1);
  return day.toISOString();
}

/** The window named by the page's address (`?period=7`, or `?from=2026-01-01&to=2026-01-31`, and `&brand=`), so a
 * period can be linked to and reloaded. */
export function useWindow(): [Window, URLSearchParams, (next: Record<string, string>) => void] {
  const [params, setParams] = useSearchParams();
  const key = params.toString();
  const window = useMemo(() => {
    const brand = params.get('brand') ?? '';
    const from = params.get('from');
    const to = params.get('to');
    if (from && to && from <= to) return { from: localDay(from, false), to: localDay(to, true), brand };
    const period = params.get('period');
    return { ...lastDays(period === '7' || period === '90' ? Number(period) : 30), brand };
    // The address is the whole input: recomputing only when it changes keeps "the last N days" still.
  }, [key]);
  const set = (next: Record<string, string>) =>
    setParams(Object.fromEntries(Object.entries(next).filter(([, v]) => v !== '')), { replace: true });
  return [window, params, set];
}

export function PeriodPicker({
  params,
  onChange,
}: {
  params: URLSearchParams;
  onChange(next: Record<string, string>): void;
}) {
  const brand = params.get('brand') ?? '';
  const [preset, setPreset] = useState<Preset>(
    params.get('from') ? 'custom' : ((params.get('period') as Preset | null) ?? '30'),
  );
  const [from, setFrom] = useState(params.get('from') ?? '');
  const [to, setTo] = useState(params.get('to') ?? '');
  const applyCustom = (f: string, t: string) => {
    if (f && t && f <= t) onChange({ from: f, to: t, brand });
  };
  return (
    <form className="filters" aria-label="Choose the period and brand" onSubmit={(e) => e.preventDefault()}>
      <label>
        Period
        <select
          value={preset}
          onChange={(e) => {
            const next = e.target.value as Preset;
            setPreset(next);
            if (next !== 'custom') onChange({ period: next, brand });
            else applyCustom(from, to);
          }}
        >
          <option value="7">Last 7 days</option>
          <option value="30">Last 30 days</option>
          <option value="90">Last 90 days</option>
          <option value="custom">Custom range</option>
        </select>
      </label>
      {preset === 'custom' ? (
        <>
          <label>
            From
            <input
              type="date"
              value={from}
              onChange={(e) => {
                setFrom(e.target.value);
                applyCustom(e.target.value, to);
              }}
            />
          </label>
          <label>
            Until (inclusive)
            <input
              type="date"
              value={to}
              min={from || undefined}
              onChange={(e) => {
                setTo(e.target.value);
                applyCustom(from, e.target.value);
              }}
            />
          </label>
        </>
      ) : null}
      <label>
        Brand
        <select
          value={brand}
          onChange={(e) =>
            onChange({
              ...(preset === 'custom' ? { from, to } : { period: preset }),
              brand: e.target.value,
            })
          }
        >
          <option value="">every brand</option>
          <BrandOptions />
        </select>
      </label>
    </form>
  );
}

/** The query the summary and the export take for a window. */
export function windowQuery(w: Window): { from: string; to: string; brand_id?: string } {
  return { from: w.from, to: w.to, ...(w.brand ? { brand_id: w.brand } : {}) };
}

/** The trend chart's buckets (the summary's `interval`): days up to two weeks, weeks up to 120 days, else months. */
export function seriesInterval(w: Window): 'day' | 'week' | 'month' {
  const span = Date.parse(w.to) - Date.parse(w.from);
  return span <= 14 * DAY ? 'day' : span <= 120 * DAY ? 'week' : 'month';
}
