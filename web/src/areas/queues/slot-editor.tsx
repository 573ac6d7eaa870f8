// The weekly slots of a queue as editable rows (day, time, zone), and the paused dates as a list with an adder.
import { useMemo, useState } from 'react';
import { Options } from '../../ui.tsx';
import { allZones, BROWSER_ZONE, DAYS, WEEK_ORDER, type WeeklySlot } from './shared.ts';

export function SlotEditor({ slots, onChange }: { slots: WeeklySlot[]; onChange(slots: WeeklySlot[]): void }) {
  const zones = useMemo(allZones, []);
  const set = (index: number, patch: Partial<WeeklySlot>) =>
    onChange(slots.map((s, i) => (i === index ? { ...s, ...patch } : s)));
  const last = slots.at(-1);
  return (
    <fieldset>
      <legend>Weekly slots</legend>
      {slots.length === 0 ? <p className="meta">No slots: add at least one so posts can be queued.</p> : null}
      <ol className="slot-rows">
        {slots.map((slot, i) => (
          <li key={i} className="slot-row">
            <label>
              <span className="sr-only">Day of slot {i + 1}</span>
              <select value={slot.day_of_week} onChange={(e) => set(i, { day_of_week: Number(e.target.value) })}>
                {WEEK_ORDER.map((d) => (
                  <option key={d} value={d}>
                    {DAYS[d]}
                  </option>
                ))}
              </select>
            </label>
            <label>
              <span className="sr-only">Time of slot {i + 1}</span>
              <input type="time" required value={slot.time} onChange={(e) => set(i, { time: e.target.value })} />
            </label>
            <label>
              <span className="sr-only">Time zone of slot {i + 1}</span>
              <select value={slot.timezone} onChange={(e) => set(i, { timezone: e.target.value })}>
                <Options values={zones} />
              </select>
            </label>
            <button
              type="button"
              className="secondary small"
              aria-label={`Remove slot ${i + 1}`}
              onClick={() => onChange(slots.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          </li>
        ))}
      </ol>
      <button
        type="button"
        className="secondary small"
        onClick={() =>
          onChange([
            ...slots,
            // A new row starts from the previous one, so a week of mornings is a few clicks on the day only.
            {
              day_of_week: last?.day_of_week ?? 1,
              time: last?.time ?? '09:00',
              timezone: last?.timezone ?? BROWSER_ZONE,
            },
          ])
        }
      >
        Add a slot
      </button>
    </fieldset>
  );
}

export function PauseEditor({ pauses, onChange }: { pauses: string[]; onChange(pauses: string[]): void }) {
  const [date, setDate] = useState('');
  return (
    <fieldset>
      <legend>Paused dates</legend>
      <p className="meta">No slot is offered on these dates (each slot&apos;s local date in its own zone).</p>
      <div className="inline">
        <label>
          Date to pause
          <input type="date" value={date} onChange={(e) => setDate(e.target.value)} />
        </label>
        <button
          type="button"
          className="secondary small"
          disabled={!date || pauses.includes(date)}
          onClick={() => {
            onChange([...pauses, date].sort());
            setDate('');
          }}
        >
          Add the date
        </button>
      </div>
      {pauses.length ? (
        <ul className="pause-list">
          {pauses.map((p) => (
            <li key={p}>
              {p}{' '}
              <button
                type="button"
                className="secondary small"
                aria-label={`Remove the pause on ${p}`}
                onClick={() => onChange(pauses.filter((x) => x !== p))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </fieldset>
  );
}
