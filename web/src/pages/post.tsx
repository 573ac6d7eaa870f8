// A post: its text and schedule, and per target (and per part of a thread) the outcome, the link (to the
// platform, or to the sandbox page for a sandbox post), errors in words with their codes, retry and cancel, and its
// recycling rule and family (web/src/areas/queues/recycling.tsx).
import { useEffect } from 'react';
import { Link, useParams } from 'react-router';
import type { components } from '@herald/client';
import { ErrorNote, formatTime, loadedFor, PageTitle, Show, useAction, useApp, useLoad } from '../ui.tsx';
import { Recycling } from '../areas/queues/recycling.tsx';

type Target = components['schemas']['Target'];
type TargetError = components['schemas']['TargetError'];

const SETTLING = new Set(['scheduled', 'publishing', 'pending_approval']);

function Failure({ error }: { error: TargetError }) {
  return (
    <p className="error-inline">
      {error.message} <code>{error.code}</code> ({error.category}
      {error.retryable ? ', Herald retries it' : ', not retried'})
    </p>
  );
}

function TargetRow({ target }: { target: Target }) {
  return (
    <li className="card target" data-platform={target.platform}>
      <h3>
        {target.platform} <span className={`status ${target.status}`}>{target.status}</span>
        {target.sandbox ? <span className="badge">sandbox</span> : null}
      </h3>
      <p>
        {target.url ? (
          <a href={target.url} target="_blank" rel="noreferrer">
            {target.sandbox ? `View on the ${target.platform} sandbox` : `View on ${target.platform}`}
          </a>
        ) : (
          <span className="meta">No link yet</span>
        )}
        {target.published_at ? <span className="meta"> · {formatTime(target.published_at)}</span> : null}
      </p>
      {target.error ? <Failure error={target.error} /> : null}
      <p className="meta">
        {target.attempt_count} attempt{target.attempt_count === 1 ? '' : 's'}
        {target.next_attempt_at ? ` · next ${formatTime(target.next_attempt_at)}` : ''}
      </p>
      {target.parts.length > 1 ? (
        <ol className="parts" aria-label={`Parts on ${target.platform}`}>
          {target.parts.map((part) => (
            <li key={part.index}>
              Part {part.index + 1}: <span className={`status ${part.status}`}>{part.status}</span>
              {part.url ? (
                <>
                  {' '}
                  <a href={part.url} target="_blank" rel="noreferrer">
                    link
                  </a>
                </>
              ) : null}
              {part.error ? <Failure error={part.error} /> : null}
            </li>
          ))}
        </ol>
      ) : null}
    </li>
  );
}

export function PostPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const post = loadedFor(
    useLoad(() => herald.GET('/posts/{id}', { params: { path: { id } } }), [herald, id]),
    id,
  );
  const action = useAction();
  const status = post.data?.status;
  // While the outcome is still coming, look again every two seconds.
  useEffect(() => {
    if (!status || !SETTLING.has(status)) return;
    const timer = setInterval(post.reload, 2000);
    return () => clearInterval(timer);
  }, [status, post.reload]);

  return (
    <>
      <p>
        <Link to="/posts">← All posts</Link>
        {id ? (
          <>
            {' · '}
            <Link to={`/analytics/posts/${id}`}>Metrics</Link>
          </>
        ) : null}
      </p>
      <PageTitle>Post</PageTitle>
      <ErrorNote error={action.error} />
      <Show loaded={post} what="the post">
        {(p) => (
          <>
            <section className="card">
              <p className="preview-text">{p.content}</p>
              <p>
                <span className={`status ${p.status}`} data-testid="post-status">
                  {p.status}
                </span>{' '}
                <span className="meta">
                  {p.schedule_at
                    ? `scheduled for ${formatTime(p.schedule_at)}${p.timezone ? ` (${p.timezone})` : ''}`
                    : ''}
                  {p.published_at ? ` · published ${formatTime(p.published_at)}` : ''}
                </span>
              </p>
              <div className="actions reserved">
                {p.status === 'failed' || p.status === 'partially_published' ? (
                  <button
                    type="button"
                    onClick={() =>
                      void action
                        .run(() => herald.POST('/posts/{id}/retry', { params: { path: { id } } }))
                        .then(post.reload)
                    }
                  >
                    Retry failed targets
                  </button>
                ) : null}
                {p.status === 'scheduled' || p.status === 'draft' || p.status === 'pending_approval' ? (
                  <button
                    type="button"
                    className="danger"
                    onClick={() =>
                      void action
                        .run(() => herald.POST('/posts/{id}/cancel', { params: { path: { id } } }))
                        .then(post.reload)
                    }
                  >
                    Cancel the post
                  </button>
                ) : null}
              </div>
            </section>
            <h2>Per platform</h2>
            <ul className="targets">
              {p.targets.map((t) => (
                <TargetRow key={t.id} target={t} />
              ))}
            </ul>
            <Recycling post={p} onChange={post.reload} />
          </>
        )}
      </Show>
    </>
  );
}
