// The source part of the repurpose form: a page's URL, pasted text, one of the workspace's posts, or a video with
// its transcript. Posts and videos are listed only when that source is chosen.
import type { FormState, SourceType } from './model.ts';
import { Radios, Show, useApp, useLoad } from '../../ui.tsx';

export interface PartProps {
  form: FormState;
  set<K extends keyof FormState>(key: K, value: FormState[K]): void;
}

const SOURCES: Array<[SourceType, string]> = [
  ['url', 'An article at a URL'],
  ['text', 'Text'],
  ['post', 'One of your posts'],
  ['media', 'A video with its transcript'],
];

function PostPicker({ form, set }: PartProps) {
  const { herald } = useApp();
  const posts = useLoad(() => herald.GET('/posts', { params: { query: { limit: 50 } } }), [herald]);
  return (
    <Show loaded={posts} what="posts" empty={(p) => p.items.length === 0}>
      {(page) => (
        <label>
          Post
          <select required value={form.postId} onChange={(e) => set('postId', e.target.value)}>
            <option value="">choose…</option>
            {page.items.map((p) => (
              <option key={p.id} value={p.id}>
                {(p.content.slice(0, 70) || '(no text)') + ` · ${p.status}`}
              </option>
            ))}
          </select>
        </label>
      )}
    </Show>
  );
}

function VideoPicker({ form, set }: PartProps) {
  const { herald } = useApp();
  const media = useLoad(
    () => herald.GET('/media', { params: { query: { kind: ['video'], status: ['ready'], limit: 50 } } }),
    [herald],
  );
  return (
    <Show loaded={media} what="videos" empty={(p) => p.items.length === 0}>
      {(page) => (
        <label>
          Video
          <select required value={form.mediaId} onChange={(e) => set('mediaId', e.target.value)}>
            <option value="">choose…</option>
            {page.items.map((m) => (
              <option key={m.id} value={m.id}>
                {m.filename}
              </option>
            ))}
          </select>
        </label>
      )}
    </Show>
  );
}

export function SourceFields({ form, set }: PartProps) {
  const type = form.sourceType;
  return (
    <fieldset className="stack">
      <legend>Source</legend>
      <div className="choices">
        <Radios name="source-type" choices={SOURCES} value={type} onChange={(value) => set('sourceType', value)} />
      </div>
      {type === 'url' ? (
        <label>
          Article URL
          <input
            type="url"
            required
            value={form.url}
            onChange={(e) => set('url', e.target.value)}
            placeholder="https://example.com/blog/launch"
          />
        </label>
      ) : null}
      {type === 'text' || type === 'media' ? (
        <label>
          Title (optional)
          <input value={form.title} onChange={(e) => set('title', e.target.value)} />
        </label>
      ) : null}
      {type === 'text' ? (
        <label>
          Text
          <textarea rows={8} required value={form.text} onChange={(e) => set('text', e.target.value)} />
        </label>
      ) : null}
      {type === 'post' ? <PostPicker form={form} set={set} /> : null}
      {type === 'media' ? (
        <>
          <VideoPicker form={form} set={set} />
          <label>
            Transcript
            <textarea
              rows={6}
              required
              value={form.transcript}
              onChange={(e) => set('transcript', e.target.value)}
              aria-describedby="transcript-help"
            />
          </label>
          <p id="transcript-help" className="meta">
            Herald does not transcribe videos: paste the transcript.
          </p>
        </>
      ) : null}
    </fieldset>
  );
}
