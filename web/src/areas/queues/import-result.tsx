// A bulk import's progress and outcome (GET /v1/posts/bulk/{id}), read again every second until the job has
// finished: how many rows are done, created and refused, and each row's post or errors.
import { useEffect } from 'react';
import { Link, useParams } from 'react-router';
import { Progress } from 'radix-ui';
import { formatTime, PageTitle, Show, useApp, useLoad } from '../../ui.tsx';
import { ResultTable } from './import-table.tsx';
import './queues.css';

export function ImportResultPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const result = useLoad(() => herald.GET('/posts/bulk/{id}', { params: { path: { id } } }), [herald, id]);
  const status = result.data?.status;
  useEffect(() => {
    if (status !== 'queued' && status !== 'running') return;
    const timer = setInterval(result.reload, 1000);
    return () => clearInterval(timer);
  }, [status, result.reload]);

  return (
    <>
      <p>
        <Link to="/queues/import">← Import another file</Link>
      </p>
      <PageTitle>Import</PageTitle>
      <Show loaded={result} what="the import">
        {(r) => {
          const fraction = r.total ? r.done / r.total : 0;
          return (
            <>
              <section className="card" aria-label="Progress">
                <p>
                  <span
                    className={`status ${r.status === 'completed' ? 'published' : r.status}`}
                    data-testid="import-status"
                  >
                    {r.status}
                  </span>{' '}
                  <span className="meta">
                    started {formatTime(r.created_at)}
                    {r.completed_at ? ` · finished ${formatTime(r.completed_at)}` : ''}
                  </span>
                </p>
                <Progress.Root className="progress" value={Math.round(fraction * 100)} aria-label="Rows done">
                  <Progress.Indicator
                    className="progress-bar"
                    style={{ transform: `translateX(-${100 - fraction * 100}%)` }}
                  />
                </Progress.Root>
                <p data-testid="import-counts">
                  {r.done} of {r.total} rows done · {r.created} created · {r.failed} refused
                </p>
                {r.error ? (
                  <p className="error-inline">
                    The import stopped: {r.error.message} <code>{r.error.code}</code>
                  </p>
                ) : null}
              </section>
              <h2>Rows</h2>
              {r.rows.length === 0 ? <p className="empty">No row done yet.</p> : <ResultTable result={r} />}
            </>
          );
        }}
      </Show>
    </>
  );
}
