// The dry run: POST /v1/automations/{id}/preview renders the next run's posts and checks each with the posts
// validator, writing nothing (no run, no post, no feed item marked seen).
import type { components } from '@herald/client';
import { ErrorNote, formatTime, useAction, useApp } from '../../ui.tsx';

export type Preview = components['schemas']['AutomationPreview'];

export function PreviewResult({ preview }: { preview: Preview }) {
  return (
    <div className="stack" data-testid="automation-preview">
      <p className="meta">
        Next slot {preview.slot ? formatTime(preview.slot) : '—'} · {preview.items_seen} item
        {preview.items_seen === 1 ? '' : 's'} read, {preview.items_new} new · nothing was saved.
      </p>
      {preview.error ? (
        <p className="error-inline">
          {preview.error.message} <code>{preview.error.code}</code>
        </p>
      ) : null}
      {preview.posts.length === 0 ? <p className="empty">The next run would create no post.</p> : null}
      <ol className="preview-posts">
        {preview.posts.map((post, i) => (
          <li key={i} className="card" aria-label={`Previewed post ${i + 1}`}>
            <p className="preview-text">{post.content || '(no text)'}</p>
            <p className="meta">
              On {post.platforms.join(', ')}
              {post.schedule_at ? ` · for ${formatTime(post.schedule_at)}` : ''}
              {post.publish_now ? ' · published at once' : ''}
              {post.image_url ? ' · with the item image' : ''}
            </p>
            {post.item ? (
              <p className="meta">
                From {post.item.url ? <a href={post.item.url}>{post.item.title ?? post.item.url}</a> : post.item.title}
              </p>
            ) : null}
            {post.valid ? (
              <p className="ok-inline">Herald would accept it.</p>
            ) : (
              <ul className="issues">
                {post.issues.map((issue) => (
                  <li key={`${issue.platform}${issue.rule}${issue.path ?? ''}`}>
                    {issue.platform ? `${issue.platform}: ` : ''}
                    {issue.message} <code>{issue.rule}</code>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}

/** The preview button and its answer; `initial` is a preview made just before arriving here. */
export function PreviewSection({
  id,
  preview,
  setPreview,
  disabled,
}: {
  id: string;
  preview: Preview | undefined;
  setPreview(p: Preview): void;
  disabled: boolean;
}) {
  const { herald } = useApp();
  const action = useAction();
  const run = async () => {
    const made = await action.run(() => herald.POST('/automations/{id}/preview', { params: { path: { id } } }));
    if (made) setPreview(made);
  };
  return (
    <section aria-labelledby="preview-heading" className="card">
      <div className="row">
        <h2 id="preview-heading">Next run, dry</h2>
        <button type="button" className="secondary" disabled={disabled || action.busy} onClick={() => void run()}>
          {action.busy ? 'Previewing…' : preview ? 'Preview again' : 'Preview the next run'}
        </button>
      </div>
      <ErrorNote error={action.error} />
      {preview ? (
        <PreviewResult preview={preview} />
      ) : (
        <p className="meta">The posts the next run would create, checked by Herald, with nothing saved.</p>
      )}
    </section>
  );
}
