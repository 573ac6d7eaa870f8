// The three ways to draw a window of events: a month grid (days are drop targets), a week of hour slots (each hour
// a drop target) and a list of days. Events are placed by the server's `date` and `local_start`, never converted
// here.
import type { DragEvent, ReactNode } from 'react';
import { dayLabel, wallTime } from './dates.ts';
import { EventItem, type MoveHandlers } from './event-item.tsx';
import type { CalendarEvent } from './events.ts';

export interface Drop {
  /** Whether a movable event is being dragged (cells accept drops only then). */
  active: boolean;
  /** The slot under the pointer, `YYYY-MM-DD` or `YYYY-MM-DDTHH`. */
  over: string | undefined;
  setOver(slot: string | undefined): void;
  dropAt(date: string, hour?: number): void;
}

export interface ViewProps {
  days: string[];
  byDate: Map<string, CalendarEvent[]>;
  today: string;
  handlers: MoveHandlers;
  drop: Drop;
}

const WEEKDAYS = Array.from({ length: 7 }, (_, i) =>
  new Intl.DateTimeFormat(undefined, { weekday: 'short', timeZone: 'UTC' }).format(Date.UTC(2024, 0, 1 + i)),
);

/** The handlers that make an element a drop target for `slot`. */
function target(drop: Drop, slot: string, date: string, hour?: number) {
  const accept = (e: DragEvent) => {
    if (!drop.active) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'move';
    if (drop.over !== slot) drop.setOver(slot);
  };
  return {
    onDragEnter: accept,
    onDragOver: accept,
    onDragLeave: () => drop.over === slot && drop.setOver(undefined),
    onDrop: (e: DragEvent) => {
      if (!drop.active) return;
      e.preventDefault();
      drop.setOver(undefined);
      drop.dropAt(date, hour);
    },
  };
}

function Events({ events, handlers }: { events: CalendarEvent[]; handlers: MoveHandlers }) {
  if (events.length === 0) return null;
  return (
    <ul className="cal-events">
      {events.map((event) => (
        <EventItem key={event.id} event={event} handlers={handlers} />
      ))}
    </ul>
  );
}

function dayClass(date: string, today: string, extra = ''): string {
  return ['cal-day', date === today ? 'today' : '', date < today ? 'past' : '', extra].filter(Boolean).join(' ');
}

export function MonthView({ days, byDate, today, handlers, drop, month }: ViewProps & { month: string }) {
  const weeks: string[][] = [];
  for (let i = 0; i < days.length; i += 7) weeks.push(days.slice(i, i + 7));
  return (
    <table className="cal-month" aria-label="Month">
      <thead>
        <tr>
          {WEEKDAYS.map((name) => (
            <th key={name} scope="col">
              {name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {weeks.map((week) => (
          <tr key={week[0]}>
            {week.map((date) => (
              <td
                key={date}
                data-date={date}
                className={dayClass(
                  date,
                  today,
                  `${date.slice(0, 7) === month ? '' : 'outside'} ${drop.over === date ? 'over' : ''}`.trim(),
                )}
                {...target(drop, date, date)}
              >
                <time className="cal-date" dateTime={date}>
                  <span aria-hidden="true">{Number(date.slice(8))}</span>
                  <span className="sr-only">{dayLabel(date, 'long')}</span>
                </time>
                <Events events={byDate.get(date) ?? []} handlers={handlers} />
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const HOURS = Array.from({ length: 24 }, (_, h) => h);

export function WeekView({ days, byDate, today, handlers, drop }: ViewProps) {
  const at = (date: string, hour: number) =>
    (byDate.get(date) ?? []).filter((e) => Number(wallTime(e.local_start).slice(0, 2)) === hour);
  return (
    // Focusable, so that a keyboard can scroll the week sideways on a narrow screen.
    <div className="table-wrap cal-week-wrap" role="region" aria-label="Week, hour by hour" tabIndex={0}>
      <table className="cal-week" aria-label="Week">
        <thead>
          <tr>
            <th scope="col">
              <span className="sr-only">Hour</span>
            </th>
            {days.map((date) => (
              <th key={date} scope="col" className={dayClass(date, today)} data-date={date}>
                {dayLabel(date)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {HOURS.map((hour) => {
            const label = `${String(hour).padStart(2, '0')}:00`;
            return (
              <tr key={hour}>
                <th scope="row" className="cal-hour">
                  {label}
                </th>
                {days.map((date) => {
                  const slot = `${date}T${String(hour).padStart(2, '0')}`;
                  return (
                    <td
                      key={date}
                      data-slot={slot}
                      className={dayClass(date, today, drop.over === slot ? 'over' : '')}
                      {...target(drop, slot, date, hour)}
                    >
                      <Events events={at(date, hour)} handlers={handlers} />
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function ListView({ days, byDate, today, handlers, empty }: ViewProps & { empty: ReactNode }) {
  const busy = days.filter((date) => (byDate.get(date) ?? []).length > 0);
  if (busy.length === 0) return <>{empty}</>;
  return (
    <ol className="cal-list">
      {busy.map((date) => (
        <li key={date} className={dayClass(date, today)} data-date={date}>
          <h3>
            {dayLabel(date, 'long')}
            {date === today ? <span className="badge">today</span> : null}
          </h3>
          <Events events={byDate.get(date)!} handlers={handlers} />
        </li>
      ))}
    </ol>
  );
}
