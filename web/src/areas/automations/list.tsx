// Automations: the list with each one's status, source, next and last run and last error, filtered by status
// (archived ones only when asked for), paged by cursor.
import { useState } from 'react';
import { Link } from 'react-router';
import { formatTime, Options, PageTitle, Show, useApp, useLoad } from '../../ui.tsx';
import { Pager, useCursors } from '../../pager.tsx';
import { describeSource, type Automation } from './model.ts';

type Status = Automation['status'];
const STATUSES: Status[] = ['active', 'paused', 'error', 'archived'];

export function AutomationsPage() {
  const { herald } = useApp();
  const [status, setStatus] = useState<Status | ''>('');
  const cursors = useCursors();
  const { cursor } = cursors;
  const page = useLoad(
    () =>
      herald.GET('/automations', {
        params: { query: { limit: 20, ...(status ? { status: [status] } : {}), ...(cursor ? { cursor } : {}) } },
      }),
    [herald, status, cursor],
  );
  return (
    <>
      <div className="row">
        <PageTitle>Automations</PageTitle>
        <Link className="button" to="/automations/new">
          New automation
        </Link>
      </div>
      <form className="filters" aria-label="Filter automations" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as Status | '');
              cursors.reset();
            }}
          >
            <option value="">any but archived</option>
            <Options values={STATUSES} />
          </select>
        </label>
      </form>
      <Show loaded={page} what="automations" empty={(d) => d.items.length === 0 && cursors.first}>
        {(data) => (
          <>
            <ul className="list automations" aria-busy={page.loading}>
              {data.items.map((a) => (
                <li key={a.id} className="card">
                  <h2 className="item-title">
                    <Link to={`/automations/${a.id}`}>{a.name}</Link>{' '}
                    <span className={`status ${a.status}`}>{a.status}</span>
                  </h2>
                  <p className="meta source-line">{describeSource(a.source)}</p>
                  <p className="meta">
                    Next run {formatTime(a.next_run_at)} · last run {formatTime(a.last_run_at)}
                  </p>
                  {a.last_error ? (
                    <p className="error-inline">
                      Last error: {a.last_error.message} <code>{a.last_error.code}</code>
                    </p>
                  ) : null}
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
