// An automation's runs (GET /v1/automations/{id}/runs), newest first: trigger, status, items, the posts each
// created (links to their pages) and its error in words.
import { Link } from 'react-router';
import type { components } from '@herald/client';
import { formatTime, Show, type Loaded } from '../../ui.tsx';

type RunPage = components['schemas']['AutomationRunPage'];
type Run = RunPage['items'][number];

export const UNFINISHED = new Set(['queued', 'running']);

function RunRow({ run }: { run: Run }) {
  return (
    <li className="card run" data-status={run.status}>
      <h3>
        {run.trigger} run <span className={`status ${run.status}`}>{run.status}</span>
      </h3>
      <p className="meta">
        Slot {run.slot.startsWith('manual:') || run.slot.startsWith('event:') ? run.slot : formatTime(run.slot)} ·
        started {formatTime(run.started_at)} · finished {formatTime(run.finished_at)}
      </p>
      <p>
        {run.items_seen} item{run.items_seen === 1 ? '' : 's'} seen, {run.items_new} new · {run.posts_created.length}{' '}
        post{run.posts_created.length === 1 ? '' : 's'} created
      </p>
      {run.posts_created.length ? (
        <ul className="run-posts" aria-label="Posts created by this run">
          {run.posts_created.map((postId) => (
            <li key={postId}>
              <Link to={`/posts/${postId}`}>Post {postId}</Link>
            </li>
          ))}
        </ul>
      ) : null}
      {run.approval_batch_id ? (
        <p className="meta">
          Approval batch <code>{run.approval_batch_id}</code>
        </p>
      ) : null}
      {run.error ? (
        <p className="error-inline">
          {run.error.message} <code>{run.error.code}</code>
        </p>
      ) : null}
    </li>
  );
}

export function RunsList({ runs }: { runs: Loaded<RunPage> }) {
  return (
    <section aria-labelledby="runs-heading">
      <h2 id="runs-heading">Runs</h2>
      <Show loaded={runs} what="runs" empty={(page) => page.items.length === 0}>
        {(page) => (
          <ol className="list runs" aria-busy={runs.loading}>
            {page.items.map((run) => (
              <RunRow key={run.id} run={run} />
            ))}
          </ol>
        )}
      </Show>
    </section>
  );
}
