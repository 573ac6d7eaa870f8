// Repurpose jobs, newest first, filtered by status and paged by cursor, with a link to start a new one.
import { useState } from 'react';
import { Link } from 'react-router';
import { formatTime, Options, PageTitle, Show, useApp, useLoad } from '../../ui.tsx';
import { Pager, useCursors } from '../../pager.tsx';
import { describeSource, type Job } from './model.ts';

const STATUSES: Array<Job['status']> = [
  'queued',
  'fetching',
  'generating',
  'completed',
  'partially_completed',
  'failed',
  'cancelled',
];

export function JobsPage() {
  const { herald } = useApp();
  const [status, setStatus] = useState<Job['status'] | ''>('');
  const cursors = useCursors();
  const { cursor } = cursors;
  const page = useLoad(
    () =>
      herald.GET('/repurpose', {
        params: { query: { limit: 20, ...(status ? { status: [status] } : {}), ...(cursor ? { cursor } : {}) } },
      }),
    [herald, status, cursor],
  );
  return (
    <>
      <div className="row">
        <PageTitle>Repurpose</PageTitle>
        <Link className="button" to="/repurpose/new">
          Repurpose content
        </Link>
      </div>
      <form className="filters" aria-label="Filter jobs" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as Job['status'] | '');
              cursors.reset();
            }}
          >
            <option value="">any</option>
            <Options values={STATUSES} />
          </select>
        </label>
      </form>
      <Show loaded={page} what="repurpose jobs" empty={(d) => d.items.length === 0 && cursors.first}>
        {(data) => (
          <>
            <ul className="list jobs" aria-busy={page.loading}>
              {data.items.map((j) => (
                <li key={j.id}>
                  <Link to={`/repurpose/${j.id}`} className="source-line">
                    {j.source_snapshot?.title ?? describeSource(j.source)}
                  </Link>
                  <span className={`status ${j.status}`}>{j.status}</span>
                  <span className="meta">
                    {j.targets.map((t) => `${t.platform} ${t.format}`).join(', ')} · {j.output.mode} · created{' '}
                    {formatTime(j.created_at)}
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
