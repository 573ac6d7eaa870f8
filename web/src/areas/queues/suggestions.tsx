// Best times for a queue (POST /v1/queues/{id}/suggest-slots): each proposal with its score, confidence and the
// posts it rests on, the platform defaults marked as such, and the chosen ones applied as the queue's slots (PATCH).
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import {
  Confirm,
  ErrorNote,
  loadedFor,
  Options,
  PageTitle,
  Ready,
  Show,
  useAction,
  useApp,
  useLoad,
} from '../../ui.tsx';
import { allZones, DAYS, mainZone, type Suggestions } from './shared.ts';
import './queues.css';

interface Ask {
  count: number;
  min_sample: number;
  timezone: string;
}

function Basis({ basis }: { basis: Suggestions['basis'] }) {
  return (
    <p className="meta">
      Read {basis.samples} published post{basis.samples === 1 ? '' : 's'} ({basis.samples_by_rate} by engagement rate)
      from {new Date(basis.window.from).toLocaleDateString()} to {new Date(basis.window.to).toLocaleDateString()},{' '}
      {basis.connection_ids ? `${basis.connection_ids.length} account(s)` : 'every account of the brand'}, grouped in{' '}
      {basis.timezone}. {basis.slots_measured} weekday-hour{basis.slots_measured === 1 ? '' : 's'} had at least{' '}
      {basis.min_sample} posts. {basis.history} suggestion{basis.history === 1 ? '' : 's'} from your history,{' '}
      {basis.defaults} platform default{basis.defaults === 1 ? '' : 's'}.
    </p>
  );
}

export function SuggestPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const queue = loadedFor(
    useLoad(() => herald.GET('/queues/{id}', { params: { path: { id } } }), [herald, id]),
    id,
  );
  const zone = queue.data ? mainZone(queue.data) : undefined;
  const [form, setForm] = useState<Ask | undefined>();
  // What was last asked: the form's values once sent, else the defaults of the queue.
  const [asked, setAsked] = useState<Ask | undefined>();
  const ask = asked ?? (zone ? { count: 7, min_sample: 3, timezone: zone } : undefined);
  const suggestions = useLoad(
    () =>
      ask
        ? herald.POST('/queues/{id}/suggest-slots', { params: { path: { id } }, body: ask })
        : new Promise<never>(() => undefined),
    [herald, id, ask?.count, ask?.min_sample, ask?.timezone],
  );
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const [applied, setApplied] = useState(false);
  const apply = useAction();
  const values = form ?? ask;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (values) setAsked(values);
    setChosen(new Set());
    setApplied(false);
  };

  return (
    <>
      <p>
        <Link to="/queues">← All queues</Link>
      </p>
      <PageTitle>Best times</PageTitle>
      {/* The suggestions wait for the queue's zone: without the queue they never start. */}
      <ErrorNote error={queue.error} />
      <Ready loads={queue.error ? [] : [queue, suggestions]} what="suggestions">
        {queue.data ? (
          <p className="meta">
            For {queue.data.name}, from how its accounts&apos; posts of the last 90 days did. It has{' '}
            {queue.data.slots.length} weekly slot{queue.data.slots.length === 1 ? '' : 's'} now; applying replaces them.
          </p>
        ) : null}
        {values ? (
          <form className="filters" aria-label="Ask for suggestions" onSubmit={submit}>
            <label>
              How many
              <input
                type="number"
                min={1}
                max={50}
                value={values.count}
                onChange={(e) => setForm({ ...values, count: Number(e.target.value) })}
              />
            </label>
            <label>
              Posts an hour needs
              <input
                type="number"
                min={2}
                max={1000}
                value={values.min_sample}
                onChange={(e) => setForm({ ...values, min_sample: Number(e.target.value) })}
              />
            </label>
            <label>
              Time zone
              <select value={values.timezone} onChange={(e) => setForm({ ...values, timezone: e.target.value })}>
                <Options values={allZones()} />
              </select>
            </label>
            <button type="submit" className="secondary">
              Suggest again
            </button>
          </form>
        ) : null}
        <Show loaded={suggestions} what="suggestions" empty={(d) => d.slots.length === 0}>
          {(s) => (
            <>
              <Basis basis={s.basis} />
              <div className="table-wrap">
                <table aria-label="Suggested slots" aria-busy={suggestions.loading}>
                  <thead>
                    <tr>
                      <th scope="col">Use</th>
                      <th scope="col">Day and time</th>
                      <th scope="col">Based on</th>
                      <th scope="col">Score</th>
                      <th scope="col">Confidence</th>
                      <th scope="col">Posts measured</th>
                    </tr>
                  </thead>
                  <tbody>
                    {s.slots.map((slot, i) => (
                      <tr key={`${slot.day_of_week}-${slot.time}`} data-source={slot.source}>
                        <td>
                          <input
                            type="checkbox"
                            aria-label={`Use ${DAYS[slot.day_of_week]} ${slot.time}`}
                            checked={chosen.has(i)}
                            onChange={(e) =>
                              setChosen((c) => {
                                const next = new Set(c);
                                if (e.target.checked) next.add(i);
                                else next.delete(i);
                                return next;
                              })
                            }
                          />
                        </td>
                        <td>
                          {DAYS[slot.day_of_week]} {slot.time} <span className="meta">{slot.timezone}</span>
                        </td>
                        <td>
                          {slot.source === 'default' ? (
                            <span className="badge muted">Platform default: no evidence</span>
                          ) : (
                            <span className="badge">Your history</span>
                          )}
                        </td>
                        <td>{slot.score === null ? '—' : slot.score.toFixed(3)}</td>
                        <td>{slot.confidence === null ? '—' : `${Math.round(slot.confidence * 100)} %`}</td>
                        <td>{slot.sample_size}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <p className="meta">
                Score: the hour&apos;s mean engagement against the accounts&apos; own average (1 is average, 1.4 is 40 %
                above). Confidence: one minus the score&apos;s relative standard error.
              </p>
              <ErrorNote error={apply.error} />
              <div className="actions">
                <button
                  type="button"
                  className="secondary"
                  onClick={() => setChosen(new Set(s.slots.map((_, i) => i)))}
                >
                  Choose all
                </button>
                <ApplyButton
                  count={chosen.size}
                  onConfirm={async () => {
                    const slots = s.slots
                      .filter((_, i) => chosen.has(i))
                      .map(({ day_of_week, time, timezone }) => ({ day_of_week, time, timezone }));
                    const done = await apply.run(() =>
                      herald.PATCH('/queues/{id}', { params: { path: { id } }, body: { slots } }),
                    );
                    if (done) {
                      setApplied(true);
                      queue.reload();
                    }
                  }}
                />
                <span role="status" className="meta">
                  {applied ? 'Applied: these are now the queue’s slots.' : ''}
                </span>
              </div>
            </>
          )}
        </Show>
      </Ready>
    </>
  );
}

function ApplyButton({ count, onConfirm }: { count: number; onConfirm(): Promise<void> }) {
  if (count === 0)
    return (
      <button type="button" disabled>
        Use the chosen slots
      </button>
    );
  return (
    <Confirm
      label={`Use the ${count} chosen slot${count === 1 ? '' : 's'}`}
      title="Replace the queue's slots?"
      description="The chosen suggestions become the queue's weekly slots, replacing the ones it has. Posts waiting in the queue move to the first of the new slots."
      action="Replace the slots"
      onConfirm={onConfirm}
    />
  );
}
