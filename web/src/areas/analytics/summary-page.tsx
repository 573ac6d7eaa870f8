// Analytics: a period's totals with their change against the period before, the trend, the per-platform
// breakdown, the top posts, the CSV export and the insights (docs/analytics.md "API").
import { Link } from 'react-router';
import { formatTime, PageTitle, Ready, Show, useApp, useLoad } from '../../ui.tsx';
import { ExportButton } from './export-button.tsx';
import {
  count,
  delta,
  deltaClass,
  METRIC_LABELS,
  METRICS,
  rate,
  type Delta,
  type Summary,
  type Totals,
} from './format.ts';
import { Insights, loadInsights } from './insights.tsx';
import { PeriodPicker, useWindow, windowQuery } from './period.tsx';
import { TableWrap } from './table-wrap.tsx';
import { loadTrend, Trend } from './trend.tsx';
import './analytics.css';

function Figure({ label, value, change, asRate }: { label: string; value: string; change: Delta; asRate?: boolean }) {
  return (
    <li className="card figure">
      <span className="figure-label">{label}</span>
      <span className="figure-value">{value}</span>
      <span className={deltaClass(change)}>{delta(change, asRate)}</span>
    </li>
  );
}

function Figures({ summary }: { summary: Summary }) {
  const { totals, deltas } = summary;
  return (
    <section aria-labelledby="totals-title">
      <h2 id="totals-title">Totals</h2>
      <p className="meta">
        Posts published {formatTime(summary.period.from)} to {formatTime(summary.period.to)}, against{' '}
        {formatTime(summary.previous_period.from)} to {formatTime(summary.previous_period.to)}.
      </p>
      <ul className="figures" aria-label="Totals and change against the previous period">
        <Figure label="Posts" value={count(totals.posts)} change={deltas.posts} />
        <Figure label="Engagements" value={count(totals.engagements)} change={deltas.engagements} />
        <Figure label="Engagement rate" value={rate(totals.engagement_rate)} change={deltas.engagement_rate} asRate />
        {METRICS.filter((m) => totals.metrics[m] !== null).map((m) => (
          <Figure key={m} label={METRIC_LABELS[m]} value={count(totals.metrics[m])} change={deltas.metrics[m]} />
        ))}
      </ul>
      {totals.unavailable.length ? (
        <p className="meta">
          Not given by these platforms: {totals.unavailable.map((m) => METRIC_LABELS[m]).join(', ')}.
        </p>
      ) : null}
    </section>
  );
}

function Breakdown({ rows }: { rows: Array<{ platform: string; totals: Totals }> }) {
  return (
    <section aria-labelledby="platforms-title">
      <h2 id="platforms-title">Per platform</h2>
      <TableWrap label="Per platform">
        <table>
          <thead>
            <tr>
              <th scope="col">Platform</th>
              <th scope="col">Posts</th>
              <th scope="col">Impressions</th>
              <th scope="col">Engagements</th>
              <th scope="col">Engagement rate</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.platform}>
                <th scope="row">{r.platform}</th>
                <td>{count(r.totals.posts)}</td>
                <td>{count(r.totals.metrics.impressions)}</td>
                <td>{count(r.totals.engagements)}</td>
                <td>{rate(r.totals.engagement_rate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}

function TopPosts({ posts }: { posts: Summary['top_posts'] }) {
  return (
    <section aria-labelledby="top-title">
      <h2 id="top-title">Top posts</h2>
      {posts.length === 0 ? (
        <p className="empty">No post of this period has engagements yet.</p>
      ) : (
        <ol className="list top-posts">
          {posts.map((p) => (
            <li key={p.post_id}>
              <Link to={`/analytics/posts/${p.post_id}`}>{p.excerpt || '(no text)'}</Link>
              <span className="meta">
                {count(p.engagements)} engagements · {rate(p.engagement_rate)} · {p.platforms.join(', ')} ·{' '}
                {formatTime(p.published_at)}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function AnalyticsPage() {
  const { herald } = useApp();
  const [window, params, setParams] = useWindow();
  const summary = useLoad(
    () => herald.GET('/analytics/summary', { params: { query: { ...windowQuery(window), top: 10 } } }),
    [herald, window],
  );
  const trend = useLoad(() => loadTrend(herald, window), [herald, window]);
  const insights = useLoad(() => loadInsights(herald, window.brand), [herald, window.brand]);
  return (
    <>
      <div className="row">
        <PageTitle>Analytics</PageTitle>
        <ExportButton window={window} />
      </div>
      <PeriodPicker params={params} onChange={setParams} />
      {/* Every section waits for the others, so none pushes another down as it arrives. */}
      <Ready loads={[summary, trend, insights]} what="analytics">
        <Show loaded={summary} what="the summary">
          {(s) =>
            s.totals.targets === 0 && s.previous_totals.targets === 0 ? (
              <p className="empty">No post was published in this period or the one before. Pick a longer period.</p>
            ) : (
              <div aria-busy={summary.loading}>
                <Figures summary={s} />
                <Trend loaded={trend} />
                <Breakdown rows={s.platform_breakdown} />
                <TopPosts posts={s.top_posts} />
              </div>
            )
          }
        </Show>
        <Insights brand={window.brand} insights={insights} />
      </Ready>
    </>
  );
}
