// The composer: text, platforms from this workspace's connections, a preview per platform with a live counter in
// that platform's unit (GET /v1/platforms), per-platform text overrides, media through the signed-URL flow with a
// progress bar, and scheduling in the user's time zone or in a queue's next or last slot. POST /v1/posts/validate
// is asked as the text changes.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { Progress } from 'radix-ui';
import type { components } from '@herald/client';
import { measure, textLimit, type TextLimit } from '../counters.ts';
import { uploadWithProgress } from '../upload.ts';
import { QueuePicker, type QueueChoice } from '../areas/queues/queue-picker.tsx';
import { ErrorNote, Options, PageTitle, Ready, Show, useAction, useApp, useLoad } from '../ui.tsx';

type PlatformId = components['schemas']['Post']['platforms'][number];
type Media = components['schemas']['Media'];
type ValidationResult = components['schemas']['ValidationResult'];
type CreatePost = components['schemas']['CreatePostRequest'];

const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

function Counter({ text, limit }: { text: string; limit: TextLimit | undefined }) {
  if (!limit) return null;
  const used = measure(text, limit.unit);
  const over = used > limit.max_length;
  return (
    <output className={over ? 'counter over' : 'counter'}>
      {used} / {limit.max_length} {limit.unit}
      {over ? ` — ${used - limit.max_length} too many` : ''}
    </output>
  );
}

export function ComposerPage() {
  const { herald } = useApp();
  const navigate = useNavigate();
  const platforms = useLoad(() => herald.GET('/platforms'), [herald]);
  const connections = useLoad(async () => {
    const items: components['schemas']['Connection'][] = [];
    for await (const c of herald.list('/connections', { params: { query: { limit: 100 } } })) items.push(c);
    return items.filter((c) => c.status === 'active');
  }, [herald]);
  const [content, setContent] = useState('');
  const [picked, setPicked] = useState<PlatformId[]>([]);
  const [overrides, setOverrides] = useState<Partial<Record<PlatformId, string>>>({});
  const [media, setMedia] = useState<Media[]>([]);
  const [progress, setProgress] = useState<number | undefined>();
  const [when, setWhen] = useState<'now' | 'later' | 'queue' | 'draft'>('later');
  const [queue, setQueue] = useState<QueueChoice>({ queueId: '', position: 'next' });
  const [scheduleAt, setScheduleAt] = useState('');
  const [timezone, setTimezone] = useState(ZONE);
  const [check, setCheck] = useState<ValidationResult | undefined>();
  const upload = useAction();
  const submit = useAction();
  const zones = useMemo(() => Intl.supportedValuesOf('timeZone'), []);
  const limits = useMemo(() => {
    const map = new Map<string, TextLimit | undefined>();
    for (const p of platforms.data?.items ?? []) map.set(p.id, textLimit(p.limits));
    return map;
  }, [platforms.data]);
  const available = useMemo(() => {
    const seen = new Map<PlatformId, boolean>();
    for (const c of connections.data ?? []) seen.set(c.platform, c.sandbox);
    return [...seen];
  }, [connections.data]);

  const body = (): CreatePost => {
    const options: Record<string, { content: string }> = {};
    for (const p of picked) if (overrides[p] !== undefined) options[p] = { content: overrides[p]! };
    return {
      content,
      platforms: picked,
      ...(media.length ? { media_ids: media.map((m) => m.id) } : {}),
      ...(Object.keys(options).length ? { platform_options: options as CreatePost['platform_options'] } : {}),
      ...(when === 'now' ? { publish_now: true } : {}),
      ...(when === 'later' && scheduleAt ? { schedule_at: `${scheduleAt}:00`, timezone } : {}),
      ...(when === 'queue' ? { queue: queue.position, ...(queue.queueId ? { queue_id: queue.queueId } : {}) } : {}),
    };
  };

  // The server's verdict on the draft, half a second after the last change.
  useEffect(() => {
    if (!content || picked.length === 0) return setCheck(undefined);
    const timer = setTimeout(() => {
      herald.POST('/posts/validate', { body: body() }).then(setCheck, () => setCheck(undefined));
    }, 500);
    return () => clearTimeout(timer);
    // body() reads exactly these values (and the queue, whose rules the check covers too).
  }, [herald, content, picked, overrides, media, when, queue]);

  const addFile = async (file: File | undefined) => {
    if (!file) return;
    setProgress(0);
    const made = await upload.run(() => uploadWithProgress(herald, file, setProgress));
    setProgress(undefined);
    if (made) setMedia((m) => [...m, made]);
  };

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const made = await submit.run(() => herald.POST('/posts', { body: body() }));
    if (made) void navigate(`/posts/${made.post_id}`);
  };

  return (
    <>
      <PageTitle>New post</PageTitle>
      <Ready loads={[platforms, connections]} what="your accounts">
        <form className="composer" onSubmit={(event) => void send(event)}>
          <div className="stack">
            <label>
              Text
              <textarea rows={6} value={content} onChange={(e) => setContent(e.target.value)} required />
            </label>
            <fieldset>
              <legend>Platforms</legend>
              <Show loaded={connections} what="connected accounts" empty={(d) => d.length === 0}>
                {() =>
                  available.map(([platform, sandbox]) => (
                    <label key={platform} className="check">
                      <input
                        type="checkbox"
                        checked={picked.includes(platform)}
                        onChange={(e) =>
                          setPicked((p) => (e.target.checked ? [...p, platform] : p.filter((x) => x !== platform)))
                        }
                      />
                      <span>
                        {platform}
                        {sandbox ? ' (sandbox)' : ''}
                      </span>
                    </label>
                  ))
                }
              </Show>
            </fieldset>
            <fieldset>
              <legend>Media</legend>
              <label>
                Add an image or video
                <input
                  type="file"
                  accept="image/*,video/*"
                  onChange={(e) => void addFile(e.target.files?.[0])}
                  disabled={progress !== undefined}
                />
              </label>
              {/* One slot for the progress bar and then the file, so nothing below moves as the upload ends. */}
              <div className="media-slot">
                {progress !== undefined ? (
                  <Progress.Root className="progress" value={Math.round(progress * 100)} aria-label="Upload progress">
                    <Progress.Indicator
                      className="progress-bar"
                      style={{ transform: `translateX(-${100 - progress * 100}%)` }}
                    />
                  </Progress.Root>
                ) : null}
                <ul className="media">
                  {media.map((m) => (
                    <li key={m.id}>
                      <span>{m.filename ?? m.id}</span>
                      <button
                        type="button"
                        className="secondary small"
                        onClick={() => setMedia((all) => all.filter((x) => x.id !== m.id))}
                      >
                        Remove
                      </button>
                    </li>
                  ))}
                </ul>
              </div>
              <ErrorNote error={upload.error} />
            </fieldset>
            <fieldset>
              <legend>When</legend>
              {(
                [
                  ['now', 'Publish now'],
                  ['later', 'Schedule'],
                  ['queue', 'Add to queue'],
                  ['draft', 'Save as draft'],
                ] as const
              ).map(([value, label]) => (
                <label key={value} className="check">
                  <input
                    type="radio"
                    name="when"
                    value={value}
                    checked={when === value}
                    onChange={() => setWhen(value)}
                  />
                  <span>{label}</span>
                </label>
              ))}
              {when === 'later' ? (
                <div className="inline">
                  <label>
                    Date and time
                    <input
                      type="datetime-local"
                      required
                      value={scheduleAt}
                      onChange={(e) => setScheduleAt(e.target.value)}
                    />
                  </label>
                  <label>
                    Time zone
                    <select value={timezone} onChange={(e) => setTimezone(e.target.value)}>
                      <Options values={zones} />
                    </select>
                  </label>
                </div>
              ) : null}
              {when === 'queue' ? <QueuePicker value={queue} onChange={setQueue} /> : null}
            </fieldset>
            <ErrorNote error={submit.error} />
            <button type="submit" disabled={submit.busy || picked.length === 0}>
              {{ now: 'Publish', later: 'Schedule', queue: 'Add to queue', draft: 'Save draft' }[when]}
            </button>
          </div>
          <section className="previews" aria-label="Previews">
            <h2>Previews</h2>
            {picked.length === 0 ? <p className="empty">Pick a platform to see its preview.</p> : null}
            {picked.map((p) => {
              const text = overrides[p] ?? content;
              const issues = [...(check?.issues ?? []), ...(check?.warnings ?? [])].filter((i) => i.platform === p);
              return (
                <article key={p} className="preview card" aria-label={`Preview on ${p}`}>
                  <h3>{p}</h3>
                  <p className="preview-text">{text || '(empty)'}</p>
                  {media.length ? <p className="meta">{media.length} attached</p> : null}
                  <Counter text={text} limit={limits.get(p)} />
                  <label className="check">
                    <input
                      type="checkbox"
                      checked={overrides[p] !== undefined}
                      onChange={(e) =>
                        setOverrides((o) => {
                          const next = { ...o };
                          if (e.target.checked) next[p] = content;
                          else delete next[p];
                          return next;
                        })
                      }
                    />
                    <span>Different text on {p}</span>
                  </label>
                  {overrides[p] !== undefined ? (
                    <label>
                      Text on {p}
                      <textarea
                        rows={4}
                        value={overrides[p]}
                        onChange={(e) => setOverrides((o) => ({ ...o, [p]: e.target.value }))}
                      />
                    </label>
                  ) : null}
                  {issues.length ? (
                    <ul className="issues">
                      {issues.map((i) => (
                        <li key={`${i.rule}${i.path}`}>
                          {i.message} <code>{i.rule}</code>
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <p className="meta checked">{check ? 'Checked by Herald: no problems.' : 'Not checked yet.'}</p>
                  )}
                </article>
              );
            })}
          </section>
        </form>
      </Ready>
    </>
  );
}
