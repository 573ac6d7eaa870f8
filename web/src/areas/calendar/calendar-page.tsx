// The calendar: posts and automation runs of a month, a week or a list in a chosen time zone, with filters, drag
// (or a keyboard form) to reschedule a post, and the ICS subscription links below.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useSearchParams } from 'react-router';
import { describeError } from '../../api.ts';
import { ErrorNote, Loading, PageTitle, useApp, useLoad } from '../../ui.tsx';
import {
  browserZone,
  dayLabel,
  knownZone,
  periodLabel,
  periodOf,
  shift,
  todayIn,
  wallTime,
  zonedInstant,
  type View,
} from './dates.ts';
import type { MoveHandlers } from './event-item.tsx';
import { byDate, loadWindow, NO_FILTERS, reschedule, type CalendarEvent, type Filters } from './events.ts';
import { Feeds } from './feeds.tsx';
import { FilterForm, Navigation } from './toolbar.tsx';
import { ListView, MonthView, WeekView, type Drop } from './views.tsx';
import './calendar.css';

const NARROW = '(max-width: 720px)';

function watchNarrow(changed: () => void): () => void {
  const query = matchMedia(NARROW);
  query.addEventListener('change', changed);
  return () => query.removeEventListener('change', changed);
}

/** Below 720 px a month grid's cells are too thin to read, so the month is shown as a list. */
function useNarrow(): boolean {
  return useSyncExternalStore(watchNarrow, () => matchMedia(NARROW).matches);
}

type Feedback = { kind: 'ok'; text: string } | { kind: 'error'; text: string; error: unknown } | undefined;

/** The outcome of a move, in a fixed strip at the bottom so it never pushes the calendar around. */
function FeedbackToast({ feedback, dismiss }: { feedback: Feedback; dismiss(): void }) {
  return (
    <div className="cal-toast-region">
      {feedback?.kind === 'error' ? (
        <div className="cal-toast error-toast">
          <p>
            <strong>{feedback.text}</strong>
          </p>
          <ErrorNote error={feedback.error} />
          <button type="button" className="secondary small" onClick={dismiss}>
            Dismiss
          </button>
        </div>
      ) : null}
      <p className={feedback?.kind === 'ok' ? 'cal-toast' : 'sr-only'} role="status">
        {feedback?.kind === 'ok' ? feedback.text : ''}
      </p>
    </div>
  );
}

const VIEWS: View[] = ['month', 'week', 'list'];

function hint(shown: View): string {
  if (shown === 'list') return 'Use a post’s Reschedule button to move it.';
  return `Drag a scheduled post to another ${shown === 'week' ? 'hour' : 'day'}, or use its Reschedule button.`;
}

export function CalendarPage() {
  const { herald } = useApp();
  const [params, setParams] = useSearchParams();
  const zone = params.get('tz') || browserZone();
  // Days are laid out in a zone the browser knows; the request still names the one asked for, so an unknown zone
  // comes back as the server's refusal in words.
  const today = todayIn(knownZone(zone) ? zone : browserZone());
  const view = (VIEWS as string[]).includes(params.get('view') ?? '') ? (params.get('view') as View) : 'month';
  const anchor = /^\d{4}-\d{2}-\d{2}$/.test(params.get('date') ?? '') ? params.get('date')! : today;
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const narrow = useNarrow();
  const period = periodOf(view, anchor);

  const update = (changes: Record<string, string | undefined>) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value) next.set(key, value);
          else next.delete(key);
        }
        return next;
      },
      { replace: true },
    );

  const loaded = useLoad(
    () => loadWindow(herald, { from: period.from, to: period.to, tz: zone }, filters),
    [herald, period.from, period.to, zone, filters],
  );

  const [feedback, setFeedback] = useState<Feedback>();
  const dragged = useRef<CalendarEvent | undefined>(undefined);
  const [dragging, setDragging] = useState(false);
  const [over, setOver] = useState<string | undefined>();

  // A success note fades after a while; an error stays until dismissed or replaced.
  useEffect(() => {
    if (feedback?.kind !== 'ok') return;
    const timer = setTimeout(() => setFeedback(undefined), 8000);
    return () => clearTimeout(timer);
  }, [feedback]);

  const reload = loaded.reload;
  const move = useCallback(
    async (event: CalendarEvent, startsAt: string) => {
      try {
        const moved = await reschedule(herald, event.id, startsAt);
        setFeedback({
          kind: 'ok',
          text: `Moved “${event.title}” to ${moved.local_start.slice(0, 16).replace('T', ' ')}.`,
        });
      } finally {
        // Refused or not, the server's calendar is redrawn: a refusal may mean the post changed meanwhile.
        reload();
      }
    },
    [herald, reload],
  );

  const handlers: MoveHandlers = {
    zone,
    move,
    dragStart: (event) => {
      dragged.current = event;
      setDragging(true);
    },
    dragEnd: () => {
      setDragging(false);
      setOver(undefined);
    },
  };

  const drop: Drop = {
    active: dragging,
    over,
    setOver,
    dropAt: (date, hour) => {
      const event = dragged.current;
      dragged.current = undefined;
      setDragging(false);
      if (!event) return;
      const time = wallTime(event.local_start);
      // A day keeps the post's time of day; an hour slot keeps its minutes.
      const newTime = hour === undefined ? time : `${String(hour).padStart(2, '0')}${time.slice(2)}`;
      if (date === event.date && newTime === time) return;
      const startsAt = zonedInstant(date, newTime, zone);
      const where = `${dayLabel(date, 'long')} ${newTime.slice(0, 5)}`;
      move(event, startsAt).catch((error: unknown) =>
        setFeedback({
          kind: 'error',
          text: `“${event.title}” was not moved to ${where}: ${describeError(error).code}.`,
          error,
        }),
      );
    },
  };

  const shown: View = view === 'month' && narrow ? 'list' : view;
  const events = loaded.data?.events ?? [];
  const days = byDate(events);
  const viewProps = { days: period.days, byDate: days, today, handlers, drop };
  const count = events.length;

  return (
    <>
      <PageTitle>Calendar</PageTitle>
      <FilterForm filters={filters} setFilters={setFilters} zone={zone} setZone={(tz) => update({ tz })} />
      <Navigation
        view={view}
        setView={(next) => update({ view: next })}
        step={(by) => update({ date: by === 'today' ? undefined : shift(view, anchor, by) })}
        label={periodLabel(view, period, anchor)}
      />
      <p className="meta cal-summary">
        {loaded.data === undefined || loaded.error
          ? '\u00a0'
          : count === 0
            ? 'No posts or automation runs in this period.'
            : `${count} event${count === 1 ? '' : 's'} in ${zone}${loaded.data.truncated ? ' (the first ones only: narrow the filters to see the rest)' : ''}. ${hint(shown)}`}
      </p>
      {/* A failed load shows only the refusal: events of another window or filter would mislead. */}
      {loaded.error ? (
        <ErrorNote error={loaded.error} />
      ) : loaded.data === undefined ? (
        <Loading what="the calendar" />
      ) : (
        <div className="cal-body" aria-busy={loaded.loading}>
          {shown === 'month' ? <MonthView {...viewProps} month={anchor.slice(0, 7)} /> : null}
          {shown === 'week' ? <WeekView {...viewProps} /> : null}
          {shown === 'list' ? (
            <ListView {...viewProps} empty={<p className="empty">Nothing on the calendar in this period.</p>} />
          ) : null}
        </div>
      )}
      <FeedbackToast feedback={feedback} dismiss={() => setFeedback(undefined)} />
      {loaded.data !== undefined || loaded.error ? <Feeds /> : null}
    </>
  );
}
