// Posts: the list with filters (status, platform, brand, dates) and cursor paging (docs/api.md "Paging").
import { useState } from 'react';
import { Link } from 'react-router';
import type { components } from '@herald/client';
import { BrandOptions, formatTime, Options, PageTitle, Show, useApp, useLoad } from '../ui.tsx';
import { Pager, useCursors } from '../pager.tsx';
import { PLATFORMS, type PlatformId } from '../platforms.ts';

type Post = components['schemas']['Post'];
type Status = Post['status'];

const STATUSES: Status[] = [
  'draft',
  'pending_approval',
  'scheduled',
  'publishing',
  'published',
  'partially_published',
  'failed',
  'cancelled',
];

interface Filters {
  status: Status | '';
  platform: PlatformId | '';
  brand: string;
  from: string;
  to: string;
}

/** A local date as the start (or end) of that day in the user's time zone, in UTC. */
function dayBound(date: string, end: boolean): string {
  return new Date(`${date}T${end ? '23:59:59.999' : '00:00:00'}`).toISOString();
}

export function PostsPage() {
  const { herald } = useApp();
  const [filters, setFilters] = useState<Filters>({ status: '', platform: '', brand: '', from: '', to: '' });
  const cursors = useCursors();
  const { cursor } = cursors;
  const page = useLoad(
    () =>
      herald.GET('/posts', {
        params: {
          query: {
            limit: 20,
            ...(filters.status ? { status: [filters.status] } : {}),
            ...(filters.platform ? { platform: filters.platform } : {}),
            ...(filters.brand ? { brand_id: filters.brand } : {}),
            ...(filters.from ? { created_from: dayBound(filters.from, false) } : {}),
            ...(filters.to ? { created_to: dayBound(filters.to, true) } : {}),
            ...(cursor ? { cursor } : {}),
          },
        },
      }),
    [herald, filters, cursor],
  );
  const set = <K extends keyof Filters>(key: K, value: Filters[K]) => {
    setFilters((f) => ({ ...f, [key]: value }));
    cursors.reset();
  };

  return (
    <>
      <div className="row">
        <PageTitle>Posts</PageTitle>
        <Link className="button" to="/posts/new">
          New post
        </Link>
      </div>
      <form className="filters" aria-label="Filter posts" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={filters.status} onChange={(e) => set('status', e.target.value as Status | '')}>
            <option value="">any</option>
            <Options values={STATUSES} />
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
          Brand
          <select value={filters.brand} onChange={(e) => set('brand', e.target.value)}>
            <option value="">any</option>
            <BrandOptions />
          </select>
        </label>
        <label>
          Created from
          <input type="date" value={filters.from} onChange={(e) => set('from', e.target.value)} />
        </label>
        <label>
          Created until
          <input type="date" value={filters.to} onChange={(e) => set('to', e.target.value)} />
        </label>
      </form>
      <Show loaded={page} what="posts" empty={(d) => d.items.length === 0 && cursors.first}>
        {(data) => (
          <>
            <ul className="list posts" aria-busy={page.loading}>
              {data.items.map((post) => (
                <li key={post.id}>
                  <Link to={`/posts/${post.id}`}>{post.content.slice(0, 80) || '(no text)'}</Link>
                  <span className={`status ${post.status}`}>{post.status}</span>
                  <span className="meta">
                    {post.platforms.join(', ')} ·{' '}
                    {post.schedule_at
                      ? `for ${formatTime(post.schedule_at)}`
                      : `created ${formatTime(post.created_at)}`}
                  </span>
                </li>
              ))}
            </ul>
            <Pager cursors={cursors} next={data.next_cursor} />
          </>
        )}
      </Show>
    </>
  );
}
