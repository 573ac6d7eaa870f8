// Triage of one item (PATCH /v1/inbox/{id}): its status (resolve, archive, reopen), its assignee (a member of the
// workspace) and its labels (the whole list is replaced on each change, as the API takes it).
import { useEffect, useState, type FormEvent } from 'react';
import { describeError } from '../../api.ts';
import { ErrorNote, useAction, useApp, type Loaded } from '../../ui.tsx';
import {
  memberName,
  refusedRule,
  ruleInWords,
  type InboxThreadItem,
  type ItemStatus,
  type Member,
  Field,
} from './shared.tsx';

type Patch = { status?: ItemStatus; assignee_id?: string | null; labels?: string[] };

function StatusActions({ status, update }: { status: ItemStatus; update(patch: Patch): void }) {
  return (
    <div className="actions" role="group" aria-label="Status">
      {status !== 'resolved' ? (
        <button type="button" className="secondary small" onClick={() => update({ status: 'resolved' })}>
          Resolve
        </button>
      ) : null}
      {status !== 'archived' ? (
        <button type="button" className="secondary small" onClick={() => update({ status: 'archived' })}>
          Archive
        </button>
      ) : null}
      {status !== 'open' ? (
        <button type="button" className="secondary small" onClick={() => update({ status: 'open' })}>
          Reopen
        </button>
      ) : null}
    </div>
  );
}

function Assignee({
  item,
  members,
  update,
}: {
  item: InboxThreadItem;
  members: Loaded<Member[]>;
  update(patch: Patch): void;
}) {
  const { me } = useApp();
  const [picked, setPicked] = useState(item.assignee_id ?? '');
  useEffect(() => setPicked(item.assignee_id ?? ''), [item.assignee_id]);
  const others = (members.data ?? []).filter((m) => m.id !== me.user.id);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update({ assignee_id: picked === '' ? null : picked });
  };
  return (
    <form className="inline" aria-label="Assign" onSubmit={submit}>
      <Field label="Assignee">
        {(id) => (
          <select id={id} value={picked} onChange={(e) => setPicked(e.target.value)}>
            <option value="">nobody</option>
            <option value={me.user.id}>me ({me.user.name ?? me.user.email})</option>
            {others.map((m) => (
              <option key={m.id} value={m.id}>
                {m.user.name ?? m.user.email} ({m.role})
              </option>
            ))}
            {picked && picked !== me.user.id && !others.some((m) => m.id === picked) ? (
              <option value={picked}>{memberName(members.data, picked)}</option>
            ) : null}
          </select>
        )}
      </Field>
      <button type="submit" className="secondary" disabled={picked === (item.assignee_id ?? '')}>
        Assign
      </button>
      {members.error ? (
        <p className="meta inbox-full">
          The member list is not available to you ({describeError(members.error).code}): you can assign to yourself.
        </p>
      ) : null}
    </form>
  );
}

function Labels({ labels, update }: { labels: string[]; update(patch: Patch): void }) {
  const [label, setLabel] = useState('');
  const add = (event: FormEvent) => {
    event.preventDefault();
    const name = label.trim();
    if (name === '' || labels.includes(name)) return;
    update({ labels: [...labels, name] });
    setLabel('');
  };
  return (
    <div>
      <ul className="inbox-labels" aria-label="Labels">
        {labels.length === 0 ? <li className="meta">No labels.</li> : null}
        {labels.map((l) => (
          <li key={l} className="badge inbox-label">
            {l}{' '}
            <button
              type="button"
              className="inbox-link-button"
              aria-label={`Remove the label ${l}`}
              onClick={() => update({ labels: labels.filter((x) => x !== l) })}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form className="inline" aria-label="Add a label" onSubmit={add}>
        <label>
          New label
          <input value={label} onChange={(e) => setLabel(e.target.value)} maxLength={100} />
        </label>
        <button type="submit" className="secondary" disabled={label.trim() === ''}>
          Add label
        </button>
      </form>
    </div>
  );
}

export function Triage({
  item,
  members,
  onChanged,
}: {
  item: InboxThreadItem;
  members: Loaded<Member[]>;
  onChanged(): void;
}) {
  const { herald, me } = useApp();
  const act = useAction();
  const update = (patch: Patch) =>
    void act
      .run(() => herald.PATCH('/inbox/{id}', { params: { path: { id: item.id } }, body: patch }))
      .then((done) => done && onChanged());
  const rule = ruleInWords(refusedRule(act.error));
  return (
    <section className="card stack" aria-labelledby="triage-heading">
      <h2 id="triage-heading">Triage</h2>
      <p>
        Status <span className={`status inbox-${item.status}`}>{item.status}</span> · assigned to{' '}
        <strong data-testid="assignee">{memberName(members.data, item.assignee_id, me.user.id)}</strong>
      </p>
      <StatusActions status={item.status} update={update} />
      <Assignee item={item} members={members} update={update} />
      <Labels labels={item.labels} update={update} />
      {rule ? <p className="error-inline">{rule}</p> : null}
      <ErrorNote error={act.error} />
    </section>
  );
}
