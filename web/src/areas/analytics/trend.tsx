// The window over time: one summary with a series (GET /v1/analytics/summary `interval`), bucketed by the server on
// the browser's calendar, so each bucket keeps the server's own definitions of engagements and rate; shown as a
// chart and as a table behind it.
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Herald } from '@herald/client';
import { Show, type Loaded } from '../../ui.tsx';
import { seriesInterval, windowQuery, type Window } from './period.tsx';
import { count, rate, shortDate } from './format.ts';
import { TableWrap } from './table-wrap.tsx';

/** The zone the buckets follow: the browser's, so a day on the chart is a day on the reader's clock. */
const BROWSER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

export type TrendRow = Awaited<ReturnType<typeof loadTrend>>[number];

export async function loadTrend(herald: Herald, window: Window) {
  const s = await herald.GET('/analytics/summary', {
    params: { query: { ...windowQuery(window), top: 1, interval: seriesInterval(window), tz: BROWSER_ZONE } },
  });
  return (s.series ?? []).map((b) => ({
    label: shortDate(b.from),
    from: b.from,
    to: b.to,
    posts: b.totals.posts,
    engagements: b.totals.engagements,
    impressions: b.totals.metrics.impressions,
    rate: b.totals.engagement_rate,
  }));
}

export function Trend({ loaded }: { loaded: Loaded<TrendRow[]> }) {
  return (
    <section aria-labelledby="trend-title" className="card">
      <h2 id="trend-title">Engagements over time</h2>
      <p className="meta">By the day (or week, or month, for longer periods) the posts were published.</p>
      <Show loaded={loaded} what="the trend">
        {(rows) => (
          <>
            {/* The chart is for sighted readers; the same numbers are in the table below it. */}
            <div className="chart" aria-hidden="true">
              <ResponsiveContainer width="100%" height="100%">
                <BarChart data={rows} accessibilityLayer={false} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
                  <CartesianGrid strokeDasharray="3 3" stroke="#c9ced6" />
                  <XAxis dataKey="label" tick={{ fill: '#4a5260', fontSize: 12 }} />
                  <YAxis allowDecimals={false} tick={{ fill: '#4a5260', fontSize: 12 }} width={48} />
                  <Tooltip formatter={(v) => count(Number(v))} />
                  <Bar dataKey="engagements" name="Engagements" fill="#1d4ed8" isAnimationActive={false} />
                </BarChart>
              </ResponsiveContainer>
            </div>
            <details>
              <summary>Show the numbers as a table</summary>
              <TableWrap label="Engagements over time">
                <table>
                  <caption className="sr-only">Engagements over time</caption>
                  <thead>
                    <tr>
                      <th scope="col">Published from</th>
                      <th scope="col">Posts</th>
                      <th scope="col">Impressions</th>
                      <th scope="col">Engagements</th>
                      <th scope="col">Engagement rate</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((r) => (
                      <tr key={r.from}>
                        <th scope="row">{r.label}</th>
                        <td>{count(r.posts)}</td>
                        <td>{count(r.impressions)}</td>
                        <td>{count(r.engagements)}</td>
                        <td>{rate(r.rate)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            </details>
          </>
        )}
      </Show>
    </section>
  );
}
