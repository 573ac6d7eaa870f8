// One repurpose job: its progress (looked at again every 1.5 seconds until it ends), cancel while it runs, what
// was read from the source, and the outputs per platform with their counters.
import { useEffect } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorNote, formatTime, PageTitle, Ready, Show, useAction, useApp, useLoad } from '../../ui.tsx';
import { describeSource, RUNNING, STEPS, type Job } from './model.ts';
import { Outputs } from './outputs.tsx';

function Progress({ job }: { job: Job }) {
  const at = STEPS.findIndex(([s]) => s === job.status);
  const ended = at === -1;
  return (
    <ol className="steps" aria-label="Progress">
      {STEPS.map(([status, label], i) => (
        <li key={status} aria-current={status === job.status ? 'step' : undefined}>
          {label}
          <span className="meta"> · {ended || i < at ? 'done' : i === at ? 'now' : 'next'}</span>
        </li>
      ))}
      <li aria-current={ended ? 'step' : undefined}>
        {ended ? (
          <>
            Ended:{' '}
            <span className={`status ${job.status}`} data-testid="job-status">
              {job.status}
            </span>
            {job.completed_at ? <span className="meta"> · {formatTime(job.completed_at)}</span> : null}
          </>
        ) : (
          <span className="meta">Not ended yet</span>
        )}
      </li>
    </ol>
  );
}

export function JobPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const job = useLoad(() => herald.GET('/repurpose/{id}', { params: { path: { id } } }), [herald, id]);
  const platforms = useLoad(() => herald.GET('/platforms'), [herald]);
  const cancel = useAction();
  const running = job.data ? RUNNING.has(job.data.status) : false;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(job.reload, 1500);
    return () => clearInterval(timer);
  }, [running, job.reload]);

  return (
    <>
      <p>
        <Link to="/repurpose">← All repurpose jobs</Link>
      </p>
      <PageTitle>Repurpose job</PageTitle>
      <Ready loads={[job, platforms]} what="the job">
        <ErrorNote error={platforms.error} />
        <Show loaded={job} what="the job">
          {(j) => (
            <>
              <section className="card" aria-label="About this job">
                <p className="source-line">
                  From <strong>{describeSource(j.source)}</strong> · to{' '}
                  {j.targets.map((t) => `${t.platform} ${t.format}${t.count > 1 ? ` ×${t.count}` : ''}`).join(', ')} ·
                  as{' '}
                  {j.output.mode === 'draft'
                    ? 'drafts'
                    : j.output.mode === 'approval'
                      ? 'posts held for approval'
                      : 'scheduled posts'}
                  {j.output.schedule
                    ? ` from ${formatTime(j.output.schedule.first_at)}, ${j.output.schedule.spacing_minutes} min apart`
                    : ''}
                </p>
                <Progress job={j} />
                <div className="actions reserved">
                  {running ? (
                    <button
                      type="button"
                      className="danger"
                      disabled={cancel.busy}
                      onClick={() =>
                        void cancel
                          .run(() => herald.POST('/repurpose/{id}/cancel', { params: { path: { id } } }))
                          .then(job.reload)
                      }
                    >
                      Cancel the job
                    </button>
                  ) : null}
                </div>
                <ErrorNote error={cancel.error} />
              </section>
              {j.error ? (
                <div className="error" role="alert">
                  <p>{j.error.message}</p>
                  <p className="meta">
                    Code <code>{j.error.code}</code>
                  </p>
                </div>
              ) : null}
              {j.source_snapshot ? (
                <section aria-labelledby="snapshot-heading">
                  <h2 id="snapshot-heading">What was read</h2>
                  {j.source_snapshot.title ? (
                    <p>
                      <strong>{j.source_snapshot.title}</strong>
                    </p>
                  ) : null}
                  <p className="preview-text">{j.source_snapshot.excerpt}</p>
                  <p className="meta">
                    Read {formatTime(j.source_snapshot.fetched_at)}
                    {j.generated_by
                      ? ` · written by ${j.generated_by.engine} (${j.generated_by.provider}${j.generated_by.model ? `, ${j.generated_by.model}` : ''})`
                      : ''}
                    {j.generated_by?.fallback_reason ? ` · fell back: ${j.generated_by.fallback_reason}` : ''}
                    {j.approval_batch_id ? ` · approval batch ${j.approval_batch_id}` : ''}
                  </p>
                </section>
              ) : null}
              {!running ? <Outputs outputs={j.outputs} platforms={platforms.data?.items ?? []} /> : null}
            </>
          )}
        </Show>
      </Ready>
    </>
  );
}
