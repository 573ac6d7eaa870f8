// Edit, then approve: the reviewer changes the post's text (and the per-platform texts that replace it), sees each
// platform's text as it would be published (POST /v1/posts/validate applies overrides and brand additions) with its
// counter, and sends `edit_and_approve` with the patch and the version the page loaded.
import { useEffect, useState, type FormEvent } from 'react';
import type { components } from '@herald/client';
import { ErrorNote, useApp } from '../../ui.tsx';
import type { DecideProps } from './decide.tsx';
import { useItemAction } from './item-action.ts';
import { Counter } from './preview.tsx';

type Post = components['schemas']['Post'];
type ValidationResult = components['schemas']['ValidationResult'];
type Options = Record<string, Record<string, unknown>>;

function overridesOf(post: Post): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [platform, options] of Object.entries((post.platform_options ?? {}) as Options)) {
    if (typeof options?.content === 'string') found[platform] = options.content;
  }
  return found;
}

export function EditAndApprove({ item, post, limits, onDecided, onConflict }: DecideProps & { post: Post }) {
  const { herald } = useApp();
  const [content, setContent] = useState(post.content);
  const [overrides, setOverrides] = useState(() => overridesOf(post));
  const [check, setCheck] = useState<ValidationResult | undefined>();
  const action = useItemAction(item, onDecided, onConflict);

  const platformOptions = (): Options => {
    const options: Options = { ...((post.platform_options ?? {}) as Options) };
    for (const [platform, text] of Object.entries(overrides))
      options[platform] = { ...options[platform], content: text };
    return options;
  };

  // The server's rendering of the edited post, half a second after the last keystroke.
  useEffect(() => {
    const timer = setTimeout(() => {
      herald
        .POST('/posts/validate', {
          body: {
            brand_id: post.brand_id,
            content,
            platforms: post.platforms,
            media_ids: post.media.map((m) => m.id),
            platform_options: platformOptions() as components['schemas']['CreatePostRequest']['platform_options'],
          },
        })
        .then(setCheck, () => setCheck(undefined));
    }, 500);
    return () => clearTimeout(timer);
    // platformOptions() reads exactly these values.
  }, [herald, content, overrides, post]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const changedOverrides = Object.keys(overrides).length > 0;
    void action.send({
      action: 'edit_and_approve',
      patch: {
        content,
        ...(changedOverrides ? { platform_options: platformOptions() } : {}),
      },
    });
  };

  const applied = new Map((check?.applied ?? []).map((a) => [a.platform as string, a.text]));
  return (
    <form className="card stack" aria-labelledby="edit-heading" onSubmit={submit}>
      <h3 id="edit-heading">Edit, then approve</h3>
      <p className="meta">
        Your edit is saved to the post and this request is approved for the edited version, at the time asked for.
      </p>
      <label>
        Text of the post
        <textarea rows={5} required value={content} onChange={(e) => setContent(e.target.value)} />
      </label>
      {Object.entries(overrides).map(([platform, text]) => (
        <label key={platform}>
          Text on {platform} (replaces the post&apos;s text there)
          <textarea
            rows={3}
            value={text}
            onChange={(e) => setOverrides((o) => ({ ...o, [platform]: e.target.value }))}
          />
        </label>
      ))}
      <ul className="edit-preview" aria-label="The edited text per platform">
        {post.platforms.map((platform) => {
          const text = applied.get(platform) ?? overrides[platform] ?? content;
          return (
            <li key={platform}>
              <strong>{platform}</strong> <Counter text={text} limit={limits.get(platform)} />
            </li>
          );
        })}
      </ul>
      {check && check.issues.length ? (
        <ul className="issues" aria-label="Problems with the edited post">
          {check.issues.map((issue, i) => (
            <li key={i}>
              {issue.platform ? `${issue.platform}: ` : ''}
              {issue.message} (<code>{issue.rule}</code>)
            </li>
          ))}
        </ul>
      ) : null}
      <ErrorNote error={action.error} />
      <div className="actions">
        <button type="submit" disabled={action.busy || !content.trim()}>
          {action.busy ? 'Saving and approving…' : 'Save the edit and approve'}
        </button>
      </div>
    </form>
  );
}
