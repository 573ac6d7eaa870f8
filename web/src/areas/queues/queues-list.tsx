// Queues: every posting queue of the workspace's brands with its slots, spacing and gap policy, and the ways into
// each one (edit, its week of slots, best-time suggestions) and into a bulk import.
import { Link } from 'react-router';
import { PageTitle, Show, useApp, useLoad } from '../../ui.tsx';
import { DAYS, mainZone, WEEK_ORDER, type Queue } from './shared.ts';
import './queues.css';

function SlotSummary({ queue }: { queue: Queue }) {
  if (queue.slots.length === 0) return <p className="meta">No slots yet: posts cannot be added until it has some.</p>;
  // Most queues keep one zone: it is said once, and only a slot in another zone names its own.
  const zone = mainZone(queue);
  const byDay = WEEK_ORDER.map((d) => [d, queue.slots.filter((s) => s.day_of_week === d)] as const).filter(
    ([, slots]) => slots.length > 0,
  );
  return (
    <>
      <p className="meta">Times in {zone}:</p>
      <ul className="slot-summary" aria-label={`Weekly slots of ${queue.name}`}>
        {byDay.map(([day, slots]) => (
          <li key={day}>
            <span className="day">{DAYS[day]?.slice(0, 3)}</span>{' '}
            {slots.map((s) => (s.timezone === zone ? s.time : `${s.time} (${s.timezone})`)).join(', ')}
          </li>
        ))}
      </ul>
    </>
  );
}

export function QueuesPage() {
  const { herald, workspace } = useApp();
  const queues = useLoad(() => herald.GET('/queues'), [herald]);
  const brandName = (id: string) => workspace?.brands.find((b) => b.id === id)?.name ?? id;
  return (
    <>
      <div className="row">
        <PageTitle>Queues</PageTitle>
        <div className="actions">
          <Link className="button" to="/queues/new">
            New queue
          </Link>
          <Link className="button secondary-link" to="/queues/import">
            Import posts from a CSV
          </Link>
        </div>
      </div>
      <p className="meta">
        A queue gives a brand weekly time slots. A post added to it takes the next free slot (or the one after the last
        taken) instead of a time of its own.
      </p>
      <Show loaded={queues} what="queues" empty={(d) => d.items.length === 0}>
        {(page) => (
          <ul className="grid queue-cards">
            {page.items.map((q) => (
              <li key={q.id} className="card">
                <h2 className="card-title">
                  <Link to={`/queues/${q.id}`}>{q.name}</Link>
                </h2>
                <p className="meta">
                  Brand {brandName(q.brand_id)} · {q.slots.length} slot{q.slots.length === 1 ? '' : 's'} a week
                  {q.min_spacing_minutes ? ` · ${q.min_spacing_minutes} min apart per account` : ''} · gaps{' '}
                  {q.gap_policy === 'close' ? 'close up' : 'stay free'}
                  {q.connection_ids ? ` · ${q.connection_ids.length} account(s) only` : ''}
                  {q.pauses.length ? ` · ${q.pauses.length} paused date(s)` : ''}
                </p>
                <SlotSummary queue={q} />
                <div className="actions">
                  <Link to={`/queues/${q.id}/week`}>Week of slots</Link>
                  <Link to={`/queues/${q.id}/suggest`}>Best times</Link>
                  <Link to={`/queues/${q.id}`}>Edit</Link>
                </div>
              </li>
            ))}
          </ul>
        )}
      </Show>
    </>
  );
}
