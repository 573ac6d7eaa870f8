// The queue's batch controls: approve or reject the selected items, and what the server answered for each, in
// words. A refusal (changed since the page loaded it, no longer pending, not allowed) is an alert naming its code.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useApp, useAction, ErrorNote } from '../../ui.tsx';
import { decideSelected, type BatchVerb, type Outcome } from './batch.ts';
import { conflictSentence, itemTitle, type Item } from './shared.tsx';

export function BatchBar({ selected, onDone }: { selected: Item[]; onDone(outcomes: Outcome[]): void }) {
  const { herald } = useApp();
  const [reason, setReason] = useState('');
  const [verb, setVerb] = useState<BatchVerb | undefined>();
  const action = useAction();
  const count = selected.length;

  const run = async (chosen: BatchVerb) => {
    setVerb(chosen);
    const outcomes = await action.run(() =>
      decideSelected(herald, selected, chosen, chosen === 'reject' ? reason.trim() : undefined),
    );
    if (outcomes) {
      setReason('');
      onDone(outcomes);
    }
  };
  const reject = (event: FormEvent) => {
    event.preventDefault();
    void run('reject');
  };

  return (
    <section className="card batch-bar" aria-labelledby="batch-heading">
      <h2 id="batch-heading">Decide the selected requests</h2>
      <p className="meta" aria-live="polite">
        {count === 0 ? 'Select pending requests in the list below.' : `${count} selected, as shown below.`}
      </p>
      <div className="actions">
        <button type="button" disabled={count === 0 || action.busy} onClick={() => void run('approve')}>
          {action.busy && verb === 'approve' ? 'Approving…' : `Approve selected (${count})`}
        </button>
      </div>
      <form className="stack" onSubmit={reject} aria-label="Reject the selected requests">
        <label>
          Reason for rejecting (required, sent to each post)
          <textarea rows={2} value={reason} required maxLength={2000} onChange={(e) => setReason(e.target.value)} />
        </label>
        <div className="actions">
          <button type="submit" className="danger" disabled={count === 0 || action.busy || !reason.trim()}>
            {action.busy && verb === 'reject' ? 'Rejecting…' : `Reject selected (${count})`}
          </button>
        </div>
      </form>
      <ErrorNote error={action.error} />
    </section>
  );
}

/** What the last batch decision did, item by item. */
export function Outcomes({ outcomes }: { outcomes: Outcome[] }) {
  const done = outcomes.filter((o) => o.outcome !== 'skipped');
  const skipped = outcomes.filter((o) => o.outcome === 'skipped');
  return (
    <section className="outcomes" aria-label="What the last decision did">
      {done.length ? (
        <p className="ok-note" role="status">
          {done.map((o) => o.outcome).includes('rejected') ? 'Rejected' : 'Approved'} {done.length} request
          {done.length === 1 ? '' : 's'}.
        </p>
      ) : null}
      {skipped.length ? (
        <div className="error" role="alert" data-testid="batch-conflict">
          <p>
            {skipped.length} selected request{skipped.length === 1 ? ' was' : 's were'} not decided. The list has been
            reloaded with what the server has now.
          </p>
          <ul>
            {skipped.map((o) => (
              <li key={o.item.id}>
                <Link to={`/approvals/${o.item.id}`}>{itemTitle(o.item)}</Link>: {conflictSentence(o.error?.code ?? '')}{' '}
                {o.error?.message} Code <code>{o.error?.code}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
