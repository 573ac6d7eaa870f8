// An item's preview: per platform, the text exactly as it will be published (overrides and brand additions applied
// when the request was made), its length in that platform's unit against its limit (GET /v1/platforms), and the
// media that go with it.
import type { components } from '@herald/client';
import { measure, textLimit, type TextLimit } from '../../counters.ts';
import { formatTime } from '../../ui.tsx';
import type { Preview } from './shared.tsx';

type Platform = components['schemas']['Post']['platforms'][number];
type PostMedia = components['schemas']['Post']['media'][number];

export function Counter({ text, limit }: { text: string; limit: TextLimit | undefined }) {
  if (!limit) return <span className="counter">No text limit on this platform</span>;
  const used = measure(text, limit.unit);
  const over = used > limit.max_length;
  return (
    <span className={over ? 'counter over' : 'counter'}>
      {used} / {limit.max_length} {limit.unit}
      {over ? ` — ${used - limit.max_length} too many` : ''}
    </span>
  );
}

export type Limits = Map<string, TextLimit | undefined>;

export function limitsOf(
  platforms: { items: Array<{ id: string; limits: Record<string, unknown> }> } | undefined,
): Limits {
  const map: Limits = new Map();
  for (const p of platforms?.items ?? []) map.set(p.id, textLimit(p.limits));
  return map;
}

function MediaList({ ids, media }: { ids: string[]; media: PostMedia[] }) {
  if (ids.length === 0) return <p className="meta">No media.</p>;
  const byId = new Map(media.map((m) => [m.id, m]));
  return (
    <ul className="media approval-media">
      {ids.map((id) => {
        const found = byId.get(id);
        const m = found && !('deleted' in found) ? found : undefined;
        const label = m?.filename ?? (found ? `${id} (deleted)` : id);
        return (
          <li key={id}>
            {m?.kind === 'image' && m.url ? (
              <img src={m.url} alt={`Image ${label}`} width={m.width ?? undefined} height={m.height ?? undefined} />
            ) : null}
            <span>
              {label}
              {m?.kind ? ` (${m.kind}${m.width && m.height ? `, ${m.width}×${m.height}` : ''})` : ''}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

export function PreviewSection({ preview, limits, media }: { preview: Preview; limits: Limits; media: PostMedia[] }) {
  return (
    <section aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview as it will go out</h2>
      <p className="meta">
        {preview.scheduleAt ? `Asked for ${formatTime(preview.scheduleAt)}.` : 'Asked to publish when approved.'}
      </p>
      <div className="approval-previews">
        {preview.platforms.map(({ platform, text }) => (
          <article key={platform} className="card" aria-label={`Preview on ${platform}`}>
            <h3>{platform}</h3>
            <p className="preview-text">{text || '(no text)'}</p>
            <Counter text={text} limit={limits.get(platform as Platform)} />
            <MediaList ids={preview.mediaIds} media={media} />
          </article>
        ))}
      </div>
    </section>
  );
}
