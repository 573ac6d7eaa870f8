// Insights: the rules engine's findings as cards with the evidence each rests on, generated on demand and
// dismissable (docs/analytics.md "Insights"). Herald records what is done with one; it never acts on it.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import type { components, Herald } from '@herald/client';
import { ErrorNote, formatTime, Show, useAction, useApp, type Loaded } from '../../ui.tsx';
import { count } from './format.ts';

type Insight = components['schemas']['Insight'];
type Period = components['schemas']['GenerateInsightsRequest']['period'];

function number(value: number): string {
  return Number.isInteger(value) ? count(value) : value.toLocaleString(undefined, { maximumFractionDigits: 3 });
}

function InsightCard({ insight, onStatus }: { insight: Insight; onStatus(status: Insight['status']): void }) {
  const { evidence, recommendation } = insight;
  const postId = typeof recommendation.params.post_id === 'string' ? recommendation.params.post_id : undefined;
  return (
    <li className={`card insight ${insight.severity}`} aria-labelledby={`insight-${insight.id}`}>
      <h3 id={`insight-${insight.id}`}>
        {insight.title} <span className="badge">{insight.severity}</span>
      </h3>
      <p>{insight.body}</p>
      <dl className="evidence">
        <dt>Measured</dt>
        <dd>
          <code>{evidence.metric}</code>: {number(evidence.value)} against {number(evidence.baseline)}
        </dd>
        <dt>Sample</dt>
        <dd>{count(evidence.sample_size)} posts</dd>
        <dt>Window</dt>
        <dd>
          {formatTime(evidence.window.from)} to {formatTime(evidence.window.to)}
        </dd>
        <dt>Suggests</dt>
        <dd>
          <code>{recommendation.action}</code>
          {postId ? (
            <>
              {' '}
              · <Link to={`/analytics/posts/${postId}`}>the post&apos;s metrics</Link>
            </>
          ) : null}
        </dd>
      </dl>
      <div className="actions">
        <button
          type="button"
          className="secondary small"
          aria-label={`Mark as done: ${insight.title}`}
          onClick={() => onStatus('acted_upon')}
        >
          Mark as done
        </button>
        <button
          type="button"
          className="secondary small"
          aria-label={`Dismiss: ${insight.title}`}
          onClick={() => onStatus('dismissed')}
        >
          Dismiss
        </button>
      </div>
    </li>
  );
}

export type InsightPage = components['schemas']['InsightPage'];

export function loadInsights(herald: Herald, brand: string): Promise<InsightPage> {
  return herald.GET('/analytics/insights', {
    params: { query: { status: ['new', 'viewed'], limit: 50, ...(brand ? { brand_id: brand } : {}) } },
  });
}

export function Insights({ brand, insights }: { brand: string; insights: Loaded<InsightPage> }) {
  const { herald } = useApp();
  const [period, setPeriod] = useState<Period>('90d');
  const [regenerate, setRegenerate] = useState(false);
  const [note, setNote] = useState('');
  const brandHeader = brand ? { 'x-herald-brand-id': brand } : {};
  const act = useAction();
  const generate = async (event: FormEvent) => {
    event.preventDefault();
    const made = await act.run(() =>
      herald.POST('/analytics/insights', { params: { header: brandHeader }, body: { period, regenerate } }),
    );
    if (made) {
      setNote(
        `${made.items.length} finding${made.items.length === 1 ? '' : 's'}${
          made.cached ? `, from the generation of ${formatTime(made.generated_at)}` : ''
        }.`,
      );
      insights.reload();
    }
  };
  const setStatus = async (id: string, status: Insight['status']) => {
    await act.run(() => herald.PATCH('/analytics/insights/{id}', { params: { path: { id } }, body: { status } }));
    insights.reload();
  };
  return (
    <section aria-labelledby="insights-title">
      <h2 id="insights-title">Insights</h2>
      <form className="filters" aria-label="Generate insights" onSubmit={(e) => void generate(e)}>
        <label>
          Posts of the last
          <select value={period} onChange={(e) => setPeriod(e.target.value as Period)}>
            <option value="30d">30 days</option>
            <option value="90d">90 days</option>
            <option value="180d">180 days</option>
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={regenerate} onChange={(e) => setRegenerate(e.target.checked)} />
          <span>Run the rules again even if they ran today</span>
        </label>
        <button type="submit" disabled={act.busy}>
          Generate insights
        </button>
      </form>
      <p className="meta status-line" role="status">
        {note}
      </p>
      <ErrorNote error={act.error} />
      <Show loaded={insights} what="insights" empty={(d) => d.items.length === 0}>
        {(page) => (
          <ul className="insights" aria-busy={insights.loading}>
            {page.items.map((i) => (
              <InsightCard key={i.id} insight={i} onStatus={(status) => void setStatus(i.id, status)} />
            ))}
          </ul>
        )}
      </Show>
    </section>
  );
}
