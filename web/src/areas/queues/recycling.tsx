// Recycling on the post page: the post's rule as it stands (POST /v1/posts/{id}/recycle to set or replace it on a
// published post, DELETE to stop it) and the recycled family, the original and its copies.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Confirm, ErrorNote, formatTime, useAction, useApp } from '../../ui.tsx';
import { RecycledFamily } from './recycled-family.tsx';
import type { Post, RecycleRule } from './shared.ts';
import './queues.css';

function RuleState({ rule }: { rule: RecycleRule }) {
  return (
    <div className="rule-state" data-testid="recycle-state">
      <p>
        <span className={`status ${rule.status === 'active' ? 'scheduled' : rule.status}`}>{rule.status}</span> Every{' '}
        {rule.every_days} day{rule.every_days === 1 ? '' : 's'}, {rule.done} of {rule.times} cop
        {rule.times === 1 ? 'y' : 'ies'} made
        {rule.until ? `, none after ${formatTime(rule.until)}` : ''}.
      </p>
      <p className="meta">
        {rule.next_at ? `Next copy ${formatTime(rule.next_at)}. ` : ''}
        {rule.vary === 'rotate_variants'
          ? `The copies take ${rule.variants.length} text${rule.variants.length === 1 ? '' : 's'} in turn.`
          : 'Each copy repeats the post as it is.'}
        {rule.last_copy_id ? (
          <>
            {' '}
            Latest copy: <Link to={`/posts/${rule.last_copy_id}`}>{rule.last_copy_id}</Link>.
          </>
        ) : null}
      </p>
      {rule.vary === 'rotate_variants' ? (
        <ol className="variants-shown" aria-label="Texts of the copies">
          {rule.variants.map((v, i) => (
            <li key={i} className="preview-text">
              {v}
            </li>
          ))}
        </ol>
      ) : null}
      {rule.error ? (
        <p className="error-inline">
          Stopped on its own: {rule.error.message} <code>{rule.error.code}</code>
        </p>
      ) : null}
    </div>
  );
}

function RuleForm({ post, onSaved }: { post: Post; onSaved(): void }) {
  const { herald } = useApp();
  const rule = post.recycle;
  const [everyDays, setEveryDays] = useState(rule?.every_days ?? 7);
  const [times, setTimes] = useState(rule?.times ?? 4);
  const [until, setUntil] = useState('');
  const [vary, setVary] = useState<'none' | 'rotate_variants'>(rule?.vary ?? 'rotate_variants');
  const [variants, setVariants] = useState<string[]>(rule?.variants.length ? rule.variants : ['']);
  const save = useAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body = {
      every_days: everyDays,
      times,
      vary,
      // The input is the browser's local wall clock; the API takes an instant.
      ...(until ? { until: new Date(until).toISOString() } : {}),
      ...(vary === 'rotate_variants' ? { variants: variants.filter((v) => v.trim() !== '') } : {}),
    };
    const done = await save.run(() => herald.POST('/posts/{id}/recycle', { params: { path: { id: post.id } }, body }));
    if (done) onSaved();
  };

  return (
    <form className="stack" aria-label="Recycling rule" onSubmit={(e) => void submit(e)}>
      <div className="inline">
        <label>
          Every (days)
          <input
            type="number"
            min={1}
            required
            value={everyDays}
            onChange={(e) => setEveryDays(Number(e.target.value))}
          />
        </label>
        <label>
          Copies
          <input
            type="number"
            min={1}
            max={100}
            required
            value={times}
            onChange={(e) => setTimes(Number(e.target.value))}
          />
        </label>
        <label>
          No copy after (optional)
          <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
        </label>
        <label>
          Text of the copies
          <select value={vary} onChange={(e) => setVary(e.target.value as 'none' | 'rotate_variants')}>
            <option value="rotate_variants">Rotate the texts below</option>
            <option value="none">Repeat the post as it is</option>
          </select>
        </label>
      </div>
      {vary === 'rotate_variants' ? (
        <fieldset>
          <legend>Texts, in turn</legend>
          <p className="meta">
            X, LinkedIn and Facebook refuse a repeated text: make each differ from the post and the next.
          </p>
          {variants.map((v, i) => (
            <div key={i} className="variant-row">
              <label className="grow">
                Text {i + 1}
                <textarea
                  rows={2}
                  value={v}
                  onChange={(e) => setVariants(variants.map((x, j) => (j === i ? e.target.value : x)))}
                />
              </label>
              {variants.length > 1 ? (
                <button
                  type="button"
                  className="secondary small"
                  aria-label={`Remove text ${i + 1}`}
                  onClick={() => setVariants(variants.filter((_, j) => j !== i))}
                >
                  Remove
                </button>
              ) : null}
            </div>
          ))}
          <button type="button" className="secondary small" onClick={() => setVariants([...variants, ''])}>
            Add a text
          </button>
        </fieldset>
      ) : null}
      <ErrorNote error={save.error} />
      <div className="actions">
        <button type="submit" disabled={save.busy}>
          {rule ? 'Replace the rule (starts over)' : 'Recycle this post'}
        </button>
      </div>
    </form>
  );
}

export function Recycling({ post, onChange }: { post: Post; onChange(): void }) {
  const { herald } = useApp();
  const stop = useAction();
  const rule = post.recycle;
  if (!rule && !post.recycled_from && post.status !== 'published') return null;
  return (
    <section className="card recycling" aria-labelledby="recycling">
      <h2 id="recycling">Recycling</h2>
      {rule ? <RuleState rule={rule} /> : <p className="meta">No recycling rule: this post goes out once.</p>}
      {rule?.status === 'active' ? (
        <div className="actions">
          <Confirm
            label="Stop recycling"
            title="Stop recycling this post?"
            description="No more copies are made. Copies already made stay; cancel them like any post."
            action="Stop"
            onConfirm={async () => {
              const done = await stop.run(() =>
                herald.DELETE('/posts/{id}/recycle', { params: { path: { id: post.id } } }),
              );
              if (done) onChange();
            }}
          />
        </div>
      ) : null}
      <ErrorNote error={stop.error} />
      {post.status === 'published' ? (
        <>
          <h3>{rule ? 'Change the rule' : 'Recycle this post'}</h3>
          <p className="meta">Herald makes a new post from this one every few days, linked to it as a copy.</p>
          <RuleForm key={rule?.updated_at ?? 'new'} post={post} onSaved={onChange} />
        </>
      ) : null}
      <RecycledFamily post={post} />
    </section>
  );
}
