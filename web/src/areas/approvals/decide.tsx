// Deciding one request: approve (at the time asked for, now, or another time), reject with a reason, or edit the
// post and approve the edited version. Every call sends the item's `version` as the page loaded it; a conflict goes
// up to the page, which says so in words and reloads.
import { useState, type FormEvent } from 'react';
import type { components } from '@herald/client';
import { ErrorNote } from '../../ui.tsx';
import { EditAndApprove } from './edit.tsx';
import type { Limits } from './preview.tsx';
import type { Item } from './shared.tsx';
import { useItemAction } from './item-action.ts';

type Post = components['schemas']['Post'];

export interface DecideProps {
  item: Item;
  post: Post | undefined;
  limits: Limits;
  onDecided(): void;
  onConflict(error: unknown): void;
}

function Approve({ item, onDecided, onConflict }: DecideProps) {
  const asked = item.proposed_action.type === 'schedule' && item.proposed_action.at;
  const [when, setWhen] = useState<'asked' | 'now' | 'other'>(asked ? 'asked' : 'now');
  const [at, setAt] = useState('');
  const action = useItemAction(item, onDecided, onConflict);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.send({
      action: 'approve',
      ...(when === 'now' ? { publish_now: true } : {}),
      ...(when === 'other' && at ? { schedule_at: new Date(at).toISOString() } : {}),
    });
  };
  return (
    <form className="card stack" aria-labelledby="approve-heading" onSubmit={submit}>
      <h3 id="approve-heading">Approve</h3>
      <fieldset>
        <legend>When it goes out</legend>
        {asked ? (
          <label className="check">
            <input type="radio" name="when" checked={when === 'asked'} onChange={() => setWhen('asked')} />
            <span>At the time asked for</span>
          </label>
        ) : null}
        <label className="check">
          <input type="radio" name="when" checked={when === 'now'} onChange={() => setWhen('now')} />
          <span>Publish now</span>
        </label>
        <label className="check">
          <input type="radio" name="when" checked={when === 'other'} onChange={() => setWhen('other')} />
          <span>At another time</span>
        </label>
        {when === 'other' ? (
          <label>
            Date and time (your time zone)
            <input type="datetime-local" required value={at} onChange={(e) => setAt(e.target.value)} />
          </label>
        ) : null}
      </fieldset>
      <ErrorNote error={action.error} />
      <div className="actions">
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Approving…' : 'Approve'}
        </button>
      </div>
    </form>
  );
}

function Reject({ item, onDecided, onConflict }: DecideProps) {
  const [reason, setReason] = useState('');
  const action = useItemAction(item, onDecided, onConflict);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.send({ action: 'reject', reason: reason.trim() });
  };
  return (
    <form className="card stack" aria-labelledby="reject-heading" onSubmit={submit}>
      <h3 id="reject-heading">Reject</h3>
      <p className="meta">The post goes back to draft, unscheduled, and shows your reason to whoever wrote it.</p>
      <label>
        Reason (required)
        <textarea rows={3} required maxLength={2000} value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <ErrorNote error={action.error} />
      <div className="actions">
        <button type="submit" className="danger" disabled={action.busy || !reason.trim()}>
          {action.busy ? 'Rejecting…' : 'Reject'}
        </button>
      </div>
    </form>
  );
}

export function DecideSection(props: DecideProps) {
  return (
    <section aria-labelledby="decide-heading">
      <h2 id="decide-heading">Decide</h2>
      <div className="decide-grid">
        <Approve {...props} />
        <Reject {...props} />
      </div>
      {props.post ? <EditAndApprove {...props} post={props.post} /> : null}
    </section>
  );
}
