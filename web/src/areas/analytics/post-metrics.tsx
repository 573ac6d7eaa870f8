// A post's metrics: its totals over its targets, and per target the latest value of each metric (or why there is
// none) and every reading as a history chart with its table (GET /v1/analytics/posts/{id}).
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import type { components } from '@herald/client';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatTime, PageTitle, Ready, Show, useApp, useLoad } from '../../ui.tsx';
import { count, METRIC_LABELS, METRICS, rate, type MetricName } from './format.ts';
import { TableWrap } from './table-wrap.tsx';
import './analytics.css';

type TargetMetrics = components['schemas']['PostAnalytics']['targets'][number];

const STATUS_WORDS = { unavailable: 'not given by the platform', pending: 'not read yet' } as const;

function LatestTable({ target }: { target: TargetMetrics }) {
  return (
    <TableWrap label={`Latest metrics on ${target.platform}`}>
      <table>
        <caption className="sr-only">Latest metrics on {target.platform}</caption>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <th scope="col">Latest</th>
          </tr>
        </thead>
        <tbody>
          {METRICS.map((m) => {
            const metric = target.metrics[m];
            return (
              <tr key={m}>
                <th scope="row">{METRIC_LABELS[m]}</th>
                <td data-testid={`metric-${target.platform}-${m}`}>
                  {metric.status === 'ok' ? (
                    count(metric.value)
                  ) : (
                    <span className="meta">{STATUS_WORDS[metric.status]}</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}

function History({ target }: { target: TargetMetrics }) {
  const read = METRICS.filter((m) => target.series[m].length > 0);
  const [shown, setShown] = useState<MetricName | undefined>(read[0]);
  const metric = shown && read.includes(shown) ? shown : read[0];
  if (!metric) return <p className="empty">No reading yet: the first comes 15 minutes after publishing.</p>;
  const times = [...new Set(read.flatMap((m) => target.series[m].map((p) => p.captured_at)))].sort();
  const valueAt = (m: MetricName, at: string) => target.series[m].find((p) => p.captured_at === at)?.value;
  const points = target.series[metric].map((p) => ({ at: formatTime(p.captured_at), value: p.value }));
  return (
    <>
      <label className="metric-pick">
        Metric in the chart
        <select value={metric} onChange={(e) => setShown(e.target.value as MetricName)}>
          {read.map((m) => (
            <option key={m} value={m}>
              {METRIC_LABELS[m]}
            </option>
          ))}
        </select>
      </label>
      {/* The chart is for sighted readers; every reading is in the table below it. */}
      <div className="chart" aria-hidden="true">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={points} accessibilityLayer={false} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#c9ced6" />
            <XAxis dataKey="at" tick={{ fill: '#4a5260', fontSize: 12 }} />
            <YAxis allowDecimals={false} tick={{ fill: '#4a5260', fontSize: 12 }} width={48} />
            <Tooltip formatter={(v) => count(Number(v))} />
            <Line dataKey="value" name={METRIC_LABELS[metric]} stroke="#1d4ed8" isAnimationActive={false} />
          </LineChart>
        </ResponsiveContainer>
      </div>
      <details>
        <summary>Show every reading as a table</summary>
        <TableWrap label={`Readings on ${target.platform}`}>
          <table>
            <caption className="sr-only">Readings on {target.platform}</caption>
            <thead>
              <tr>
                <th scope="col">Read at</th>
                {read.map((m) => (
                  <th key={m} scope="col">
                    {METRIC_LABELS[m]}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {times.map((at) => (
                <tr key={at}>
                  <th scope="row">{formatTime(at)}</th>
                  {read.map((m) => (
                    <td key={m}>{count(valueAt(m, at))}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
    </>
  );
}

function TargetCard({ target }: { target: TargetMetrics }) {
  return (
    <li className="card" aria-labelledby={`target-${target.target_id}`}>
      <h3 id={`target-${target.target_id}`}>
        {target.platform} <span className={`status ${target.status}`}>{target.status}</span>
      </h3>
      <p className="meta">
        Published {formatTime(target.published_at)} · last read {formatTime(target.last_synced_at)} ·{' '}
        {count(target.engagements)} engagements · rate {rate(target.engagement_rate)}
      </p>
      <div className="target-metrics">
        <LatestTable target={target} />
        <div>
          <h4>History</h4>
          <History target={target} />
        </div>
      </div>
    </li>
  );
}

export function PostMetricsPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const metrics = useLoad(() => herald.GET('/analytics/posts/{id}', { params: { path: { id } } }), [herald, id]);
  const post = useLoad(() => herald.GET('/posts/{id}', { params: { path: { id } } }), [herald, id]);
  return (
    <>
      <p>
        <Link to="/analytics">← Analytics</Link> · <Link to={`/posts/${id}`}>The post</Link>
      </p>
      <PageTitle>Post metrics</PageTitle>
      <Ready loads={[metrics, post]} what="the post's metrics">
        {post.data ? <p className="preview-text card">{post.data.content || '(no text)'}</p> : null}
        <Show loaded={metrics} what="metrics" empty={(d) => d.targets.length === 0}>
          {(m) => (
            <>
              <section aria-labelledby="post-totals">
                <h2 id="post-totals">Totals</h2>
                <p data-testid="post-totals">
                  {count(m.totals.engagements)} engagements · engagement rate {rate(m.totals.engagement_rate)} ·{' '}
                  {count(m.totals.metrics.impressions)} impressions over {m.totals.targets} target
                  {m.totals.targets === 1 ? '' : 's'}
                </p>
              </section>
              <h2>Per platform</h2>
              <ul className="targets">
                {m.targets.map((t) => (
                  <TargetCard key={t.target_id} target={t} />
                ))}
              </ul>
            </>
          )}
        </Show>
      </Ready>
    </>
  );
}
