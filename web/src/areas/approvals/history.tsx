// An item's history (every step, oldest first, from GET /v1/approvals/items/{id}) and its comments, with a form to
// add one (the `comment` action: it goes into the history and leaves the status as it is).
import { useState, type FormEvent } from 'react';
import { ErrorNote, formatTime } from '../../ui.tsx';
import { useItemAction } from './item-action.ts';
import { personName, type HistoryEntry, type Item } from './shared.tsx';

const STEP: Record<HistoryEntry['type'], string> = {
  submit: 'asked for approval',
  edit: 'edited the post',
  comment: 'commented',
  approve: 'approved',
  reject: 'rejected',
  expire: 'expired the request',
  supersede: 'superseded the request with an edit',
  cancel: 'cancelled the request',
};

function detail(entry: HistoryEntry): string {
  const fields = entry.data.fields;
  if (entry.type === 'edit' && Array.isArray(fields)) return `Fields changed: ${fields.join(', ')}.`;
  return '';
}

export function HistorySection({ item, names }: { item: Item; names: Map<string, string> }) {
  const history = item.history ?? [];
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      {history.length === 0 ? (
        <p className="empty">No steps recorded yet.</p>
      ) : (
        <ol className="steps history" aria-label="History of this request">
          {history.map((entry, i) => (
            <li key={i} data-step={entry.type}>
              <strong>{personName(names, entry.actor_id)}</strong> {STEP[entry.type]}{' '}
              <span className="meta">{formatTime(entry.created_at)}</span>
              {entry.reason && entry.type !== 'comment' ? <p className="preview-text">“{entry.reason}”</p> : null}
              {detail(entry) ? <p className="meta">{detail(entry)}</p> : null}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function CommentsSection({
  item,
  names,
  onChanged,
  onConflict,
}: {
  item: Item;
  names: Map<string, string>;
  onChanged(): void;
  onConflict(error: unknown): void;
}) {
  const [text, setText] = useState('');
  const action = useItemAction(
    item,
    () => {
      setText('');
      onChanged();
    },
    onConflict,
  );
  const comments = (item.history ?? []).filter((h) => h.type === 'comment');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.send({ action: 'comment', reason: text.trim() });
  };
  return (
    <section aria-labelledby="comments-heading">
      <h2 id="comments-heading">Comments</h2>
      {comments.length === 0 ? (
        <p className="empty">No comments yet.</p>
      ) : (
        <ul className="list comments">
          {comments.map((c, i) => (
            <li key={i}>
              <strong>{personName(names, c.actor_id)}</strong>
              <span className="meta">{formatTime(c.created_at)}</span>
              <p className="preview-text comment-text">{c.reason}</p>
            </li>
          ))}
        </ul>
      )}
      <form className="stack" onSubmit={submit} aria-label="Add a comment">
        <label>
          Your comment
          <textarea rows={2} required maxLength={2000} value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <ErrorNote error={action.error} />
        <div className="actions">
          <button type="submit" className="secondary" disabled={action.busy || !text.trim()}>
            {action.busy ? 'Adding…' : 'Add the comment'}
          </button>
        </div>
      </form>
    </section>
  );
}
