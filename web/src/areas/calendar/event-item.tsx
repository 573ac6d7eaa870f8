// One event on the calendar: its time, title, type, status and platforms; an editable post can be dragged, and has
// a "Reschedule" button opening a small form, the keyboard's way to do the same move.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Dialog } from 'radix-ui';
import { ErrorNote } from '../../ui.tsx';
import { zonedInstant, wallTime } from './dates.ts';
import { movable, type CalendarEvent } from './events.ts';

export interface MoveHandlers {
  zone: string;
  /** Sends the PATCH and reloads the calendar; throws the server's refusal. */
  move(event: CalendarEvent, startsAt: string): Promise<void>;
  dragStart(event: CalendarEvent): void;
  dragEnd(): void;
}

const TYPE_LABEL: Record<CalendarEvent['type'], string> = { post: 'Post', automation_run: 'Automation run' };

function RescheduleDialog({ event, handlers }: { event: CalendarEvent; handlers: MoveHandlers }) {
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState(event.local_start.slice(0, 16));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [same, setSame] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // The post's own time is not a move: say so instead of sending a PATCH that changes nothing and closing.
    const unchanged = value === event.local_start.slice(0, 16);
    setSame(unchanged);
    if (unchanged) return;
    setBusy(true);
    setError(undefined);
    try {
      await handlers.move(event, zonedInstant(value.slice(0, 10), `${value.slice(11, 16)}:00`, handlers.zone));
      setOpen(false);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (next) {
          setValue(event.local_start.slice(0, 16));
          setError(undefined);
          setSame(false);
        }
      }}
    >
      <Dialog.Trigger asChild>
        <button type="button" className="secondary small" aria-label={`Reschedule “${event.title}”`}>
          Reschedule
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title>Reschedule “{event.title}”</Dialog.Title>
          <Dialog.Description>
            Now {event.local_start.slice(0, 10)} at {wallTime(event.local_start).slice(0, 5)} ({handlers.zone}).
          </Dialog.Description>
          <form className="stack" onSubmit={(e) => void submit(e)}>
            <label>
              New date and time ({handlers.zone})
              <input
                type="datetime-local"
                required
                value={value}
                onChange={(e) => {
                  setValue(e.target.value);
                  setSame(false);
                }}
              />
            </label>
            {same ? (
              <p className="error" role="alert">
                That is when the post is already scheduled: pick another date or time.
              </p>
            ) : null}
            <ErrorNote error={error} />
            <div className="actions">
              <Dialog.Close asChild>
                <button type="button" className="secondary">
                  Cancel
                </button>
              </Dialog.Close>
              <button type="submit" disabled={busy || !value}>
                Move the post
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

export function EventItem({ event, handlers }: { event: CalendarEvent; handlers: MoveHandlers }) {
  const canMove = movable(event);
  return (
    <li
      className={`cal-event${canMove ? ' movable' : ''}`}
      data-event-id={event.id}
      draggable={canMove}
      onDragStart={(e) => {
        if (!canMove) return;
        e.dataTransfer.effectAllowed = 'move';
        e.dataTransfer.setData('text/plain', event.id);
        handlers.dragStart(event);
      }}
      onDragEnd={handlers.dragEnd}
    >
      <span className="cal-line">
        <time dateTime={event.starts_at} className="cal-time">
          {wallTime(event.local_start).slice(0, 5)}
        </time>{' '}
        {event.post_id ? (
          <Link to={`/posts/${event.post_id}`} draggable={false} className="cal-title">
            {event.title || '(no text)'}
          </Link>
        ) : (
          <span className="cal-title">{event.title}</span>
        )}
      </span>
      <span className="cal-line meta">
        {TYPE_LABEL[event.type]} <span className={`status ${event.status}`}>{event.status.replace(/_/g, ' ')}</span>{' '}
        {event.platforms.join(', ')}
      </span>
      {canMove ? <RescheduleDialog event={event} handlers={handlers} /> : null}
    </li>
  );
}
