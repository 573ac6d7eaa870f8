// A job's outputs per platform: each part of a thread with its live counter in the platform's unit (the same
// counters as the composer), the server's own count and verdict, hashtags, and the post it became or the rule it
// broke.
import { Link } from 'react-router';
import type { components } from '@herald/client';
import { measure, textLimit, type TextLimit } from '../../counters.ts';
import type { Output } from './model.ts';

type Platform = components['schemas']['Platform'];

function PartCounter({ text, limit }: { text: string; limit: TextLimit | undefined }) {
  if (!limit) return null;
  const used = measure(text, limit.unit);
  const over = used > limit.max_length;
  return (
    <span className={over ? 'counter over' : 'counter'}>
      {used} / {limit.max_length} {limit.unit}
      {over ? ` — ${used - limit.max_length} too many` : ''}
    </span>
  );
}

function OutputCard({ output, limit, n }: { output: Output; limit: TextLimit | undefined; n: number }) {
  return (
    <article className="card output" aria-label={`${output.platform} ${output.format} ${n}`}>
      <h4>
        {output.format} {n} <span className={`status ${output.status}`}>{output.status}</span>{' '}
        <span className={output.within_limit ? 'badge' : 'badge danger-badge'}>
          {output.within_limit ? 'within the limit' : 'over the limit'}
        </span>
      </h4>
      <ol className="parts-list" aria-label={`Parts of ${output.platform} ${output.format} ${n}`}>
        {output.parts.map((part, i) => (
          <li key={i}>
            <p className="preview-text">{part}</p>
            <PartCounter text={part} limit={limit} />
          </li>
        ))}
      </ol>
      <p className="meta">
        Longest part {output.char_count}
        {limit ? ` ${limit.unit}` : ''} as Herald counts it
        {output.hashtags.length ? ` · ${output.hashtags.join(' ')}` : ''}
      </p>
      {output.post_id ? (
        <p>
          <Link to={`/posts/${output.post_id}`}>Open its post</Link>
          {output.approval_item_id ? <span className="meta"> · waiting in the approval queue</span> : null}
        </p>
      ) : null}
      {output.error ? (
        <p className="error-inline">
          {output.error.message} <code>{output.error.rule}</code>
        </p>
      ) : null}
    </article>
  );
}

export function Outputs({ outputs, platforms }: { outputs: Output[]; platforms: Platform[] }) {
  const byPlatform = new Map<string, Output[]>();
  for (const o of outputs) byPlatform.set(o.platform, [...(byPlatform.get(o.platform) ?? []), o]);
  return (
    <section aria-labelledby="outputs-heading">
      <h2 id="outputs-heading">Outputs</h2>
      {outputs.length === 0 ? <p className="empty">No outputs.</p> : null}
      {[...byPlatform].map(([platform, list]) => {
        const p = platforms.find((x) => x.id === platform);
        return (
          <section key={platform} aria-label={`Outputs on ${p?.name ?? platform}`}>
            <h3>{p?.name ?? platform}</h3>
            {list.map((o, i) => (
              <OutputCard key={o.id} output={o} limit={p ? textLimit(p.limits) : undefined} n={i + 1} />
            ))}
          </section>
        );
      })}
    </section>
  );
}
