// The calendar's controls: the view, the period (previous, today, next), the time zone, and the filters the events
// endpoint supports (brand, platform, status, type).
import { useMemo } from 'react';
import { BrandOptions, Options } from '../../ui.tsx';
import { zoneChoices, type View } from './dates.ts';
import { PLATFORMS } from '../../platforms.ts';
import { STATUSES, TYPES, type Filters } from './events.ts';

const VIEWS: Array<[View, string]> = [
  ['month', 'Month'],
  ['week', 'Week'],
  ['list', 'List'],
];

export function Navigation({
  view,
  setView,
  step,
  label,
}: {
  view: View;
  setView(view: View): void;
  step(by: number | 'today'): void;
  label: string;
}) {
  const unit = view === 'week' ? 'week' : 'month';
  return (
    <div className="cal-toolbar">
      <div className="actions" role="group" aria-label="View">
        {VIEWS.map(([value, name]) => (
          <button
            key={value}
            type="button"
            className={value === view ? 'small' : 'secondary small'}
            aria-pressed={value === view}
            onClick={() => setView(value)}
          >
            {name}
          </button>
        ))}
      </div>
      <div className="actions" role="group" aria-label="Period">
        <button type="button" className="secondary small" onClick={() => step(-1)} aria-label={`Previous ${unit}`}>
          ‹ Previous
        </button>
        <button type="button" className="secondary small" onClick={() => step('today')}>
          Today
        </button>
        <button type="button" className="secondary small" onClick={() => step(1)} aria-label={`Next ${unit}`}>
          Next ›
        </button>
      </div>
      <h2 className="cal-period" aria-live="polite">
        {label}
      </h2>
    </div>
  );
}

export function FilterForm({
  filters,
  setFilters,
  zone,
  setZone,
}: {
  filters: Filters;
  setFilters(filters: Filters): void;
  zone: string;
  setZone(zone: string): void;
}) {
  const zones = useMemo(() => zoneChoices(zone), [zone]);
  const set = <K extends keyof Filters>(key: K, value: Filters[K]) => setFilters({ ...filters, [key]: value });
  return (
    <form className="filters cal-filters" aria-label="Filter the calendar" onSubmit={(e) => e.preventDefault()}>
      <label>
        Time zone
        <select value={zone} onChange={(e) => setZone(e.target.value)}>
          <Options values={zones} />
        </select>
      </label>
      <label>
        Brand
        <select value={filters.brand} onChange={(e) => set('brand', e.target.value)}>
          <option value="">every brand</option>
          <BrandOptions />
        </select>
      </label>
      <label>
        Platform
        <select value={filters.platform} onChange={(e) => set('platform', e.target.value as Filters['platform'])}>
          <option value="">any</option>
          <Options values={PLATFORMS} />
        </select>
      </label>
      <label>
        Status
        <select value={filters.status} onChange={(e) => set('status', e.target.value as Filters['status'])}>
          <option value="">any but cancelled</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </label>
      <label>
        Type
        <select value={filters.type} onChange={(e) => set('type', e.target.value as Filters['type'])}>
          <option value="">posts and automation runs</option>
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {t === 'post' ? 'posts' : 'automation runs'}
            </option>
          ))}
        </select>
      </label>
    </form>
  );
}
