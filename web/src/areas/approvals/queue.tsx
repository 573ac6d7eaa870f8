// The review queue: approval requests with the filters GET /v1/approvals/items takes (status, kind, source, brand,
// platform, requested between two dates), cursor paging, and batch decisions over the requests selected on screen.
import { useState } from 'react';
import { Link } from 'react-router';
import { BrandOptions, formatTime, Options, PageTitle, Ready, Show, useApp, useLoad } from '../../ui.tsx';
import { Pager, useCursors } from '../../pager.tsx';
import { PLATFORMS, type PlatformId } from '../../platforms.ts';
import { BatchBar, Outcomes } from './batch-bar.tsx';
import type { Outcome } from './batch.ts';
import {
  brandName,
  ITEM_STATUSES,
  itemTitle,
  KINDS,
  personName,
  proposal,
  SOURCES,
  useNames,
  type Item,
  type ItemStatus,
  type Kind,
  type Source,
} from './shared.tsx';
import './approvals.css';

interface Filters {
  status: ItemStatus | '';
  kind: Kind | '';
  source: Source | '';
  brand: string;
  platform: PlatformId | '';
  from: string;
  to: string;
}

/** A local date as the start of that day (or of the next one) in the user's time zone, in UTC. */
function dayBound(date: string, end: boolean): string {
  const start = new Date(`${date}T00:00:00`);
  if (end) start.setDate(start.getDate() + 1);
  return start.toISOString();
}

function Row({
  item,
  checked,
  onCheck,
  names,
}: {
  item: Item;
  checked: boolean;
  onCheck(on: boolean): void;
  names: Map<string, string>;
}) {
  const { workspace } = useApp();
  const title = itemTitle(item);
  return (
    <li className="approval-row" data-item-id={item.id}>
      <span className="select">
        {item.status === 'pending' ? (
          <input
            type="checkbox"
            aria-label={`Select “${title}”`}
            checked={checked}
            onChange={(e) => onCheck(e.target.checked)}
          />
        ) : null}
      </span>
      <div className="what">
        <Link to={`/approvals/${item.id}`}>{title}</Link>
        <p className="meta">
          <span className={`status ${item.status}`}>{item.status}</span> {item.platforms.join(', ')} ·{' '}
          {proposal(item, formatTime)}
        </p>
        <p className="meta">
          {brandName(workspace?.brands, item.brand_id)} · from {item.source.type} · asked by{' '}
          {personName(names, item.requested_by)} {formatTime(item.requested_at)} · version {item.version}
          {item.batch_id ? ` · batch ${item.batch_id}` : ''}
        </p>
      </div>
    </li>
  );
}

export function QueuePage() {
  const { herald } = useApp();
  const namesLoad = useNames();
  const names = namesLoad.data ?? new Map<string, string>();
  const [filters, setFilters] = useState<Filters>({
    status: 'pending',
    kind: '',
    source: '',
    brand: '',
    platform: '',
    from: '',
    to: '',
  });
  const cursors = useCursors();
  const { cursor } = cursors;
  // The items as this page showed them, by id: a batch decision sends exactly these (and their versions).
  const [selected, setSelected] = useState<Map<string, Item>>(new Map());
  const [outcomes, setOutcomes] = useState<Outcome[] | undefined>();
  const page = useLoad(() => {
    setSelected(new Map());
    return herald.GET('/approvals/items', {
      params: {
        query: {
          limit: 20,
          ...(filters.status ? { status: [filters.status] } : {}),
          ...(filters.kind ? { kind: filters.kind } : {}),
          ...(filters.source ? { source: [filters.source] } : {}),
          ...(filters.brand ? { brand_id: filters.brand } : {}),
          ...(filters.platform ? { platform: filters.platform } : {}),
          ...(filters.from ? { created_from: dayBound(filters.from, false) } : {}),
          ...(filters.to ? { created_to: dayBound(filters.to, true) } : {}),
          ...(cursor ? { cursor } : {}),
        },
      },
    });
  }, [herald, filters, cursor]);
  const set = <K extends keyof Filters>(key: K, value: Filters[K]) => {
    setFilters((f) => ({ ...f, [key]: value }));
    cursors.reset();
  };
  const check = (item: Item, on: boolean) =>
    setSelected((s) => {
      const next = new Map(s);
      if (on) next.set(item.id, item);
      else next.delete(item.id);
      return next;
    });

  return (
    <>
      <div className="row">
        <PageTitle>Approvals</PageTitle>
        <Link to="/settings/approvals">Approval policy</Link>
      </div>
      <form className="filters" aria-label="Filter approval requests" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={filters.status} onChange={(e) => set('status', e.target.value as ItemStatus | '')}>
            <option value="">any</option>
            <Options values={ITEM_STATUSES} />
          </select>
        </label>
        <label>
          Kind
          <select value={filters.kind} onChange={(e) => set('kind', e.target.value as Kind | '')}>
            <option value="">any</option>
            <Options values={KINDS} />
          </select>
        </label>
        <label>
          Source
          <select value={filters.source} onChange={(e) => set('source', e.target.value as Source | '')}>
            <option value="">any</option>
            <Options values={SOURCES} />
          </select>
        </label>
        <label>
          Brand
          <select value={filters.brand} onChange={(e) => set('brand', e.target.value)}>
            <option value="">any</option>
            <BrandOptions />
          </select>
        </label>
        <label>
          Platform
          <select value={filters.platform} onChange={(e) => set('platform', e.target.value as PlatformId | '')}>
            <option value="">any</option>
            <Options values={PLATFORMS} />
          </select>
        </label>
        <label>
          Requested from
          <input type="date" value={filters.from} onChange={(e) => set('from', e.target.value)} />
        </label>
        <label>
          Requested until
          <input type="date" value={filters.to} onChange={(e) => set('to', e.target.value)} />
        </label>
      </form>
      <BatchBar
        selected={[...selected.values()]}
        onDone={(done) => {
          setOutcomes(done);
          page.reload();
        }}
      />
      {outcomes ? <Outcomes outcomes={outcomes} /> : null}
      <h2>Requests</h2>
      <Ready loads={[namesLoad]} what="approval requests">
        <Show loaded={page} what="approval requests" empty={(d) => d.items.length === 0 && cursors.first}>
          {(data) => (
            <>
              <ul className="list approvals" aria-busy={page.loading}>
                {data.items.map((item) => (
                  <Row
                    key={item.id}
                    item={item}
                    names={names}
                    checked={selected.has(item.id)}
                    onCheck={(on) => check(item, on)}
                  />
                ))}
              </ul>
              <Pager cursors={cursors} next={data.next_cursor} />
            </>
          )}
        </Show>
      </Ready>
    </>
  );
}
