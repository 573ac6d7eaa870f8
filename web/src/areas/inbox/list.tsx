// The Inbox: every comment, reply, mention, direct message and review in one list, newest received first, with
// filters and cursor paging (GET /v1/inbox, docs/inbox.md "Endpoints").
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { formatTime, Options, PageTitle, Ready, Show, useApp, useLoad } from '../../ui.tsx';
import { Pager, useCursors } from '../../pager.tsx';
import {
  authorName,
  excerpt,
  INBOX_PLATFORMS,
  ITEM_STATUSES,
  KIND_WORDS,
  KINDS,
  memberName,
  useMembers,
  type InboxItem,
  type ItemStatus,
  type Kind,
  type PlatformId,
  Field,
} from './shared.tsx';

interface Filters {
  kind: Kind | '';
  status: ItemStatus | '';
  platform: PlatformId | '';
  assignee: string;
  label: string;
  q: string;
}

const NONE: Filters = { kind: '', status: '', platform: '', assignee: '', label: '', q: '' };

function ItemRow({ item, assignee }: { item: InboxItem; assignee: string }) {
  return (
    <li className="card inbox-row" data-item={item.id}>
      <div className="inbox-row-head">
        <span className="badge muted">{KIND_WORDS[item.kind]}</span>
        <span className="badge">{item.platform}</span>
        <span className={`status inbox-${item.status}`}>{item.status}</span>
        <span className="meta">{formatTime(item.received_at)}</span>
      </div>
      <p className="inbox-excerpt">
        <strong>{authorName(item.author)}</strong>
        {item.author.username && item.author.display_name ? (
          <span className="meta"> @{item.author.username}</span>
        ) : null}
        : <Link to={`/inbox/${item.id}`}>{excerpt(item.text)}</Link>
      </p>
      <p className="meta">
        Assigned to {assignee}
        {item.labels.length > 0 ? ' · ' : ''}
        {item.labels.map((l) => (
          <span key={l} className="badge inbox-label">
            {l}
          </span>
        ))}
        {item.from_account ? ' · the account’s own message' : ''}
      </p>
    </li>
  );
}

export function InboxListPage() {
  const { herald, me } = useApp();
  const members = useMembers();
  const [filters, setFilters] = useState<Filters>(NONE);
  // Text fields apply on submit, so each keystroke does not start a request.
  const [typed, setTyped] = useState({ label: '', q: '' });
  const cursors = useCursors();
  const { cursor } = cursors;
  const page = useLoad(
    () =>
      herald.GET('/inbox', {
        params: {
          query: {
            limit: 25,
            ...(filters.kind ? { kind: [filters.kind] } : {}),
            ...(filters.status ? { status: [filters.status] } : {}),
            ...(filters.platform ? { platform: filters.platform } : {}),
            ...(filters.assignee ? { assignee_id: filters.assignee } : {}),
            ...(filters.label ? { label: filters.label } : {}),
            ...(filters.q ? { q: filters.q } : {}),
            ...(cursor ? { cursor } : {}),
          },
        },
      }),
    [herald, filters, cursor],
  );
  const set = <K extends keyof Filters>(key: K, value: Filters[K]) => {
    setFilters((f) => ({ ...f, [key]: value }));
    cursors.reset();
  };
  const search = (event: FormEvent) => {
    event.preventDefault();
    setFilters((f) => ({ ...f, label: typed.label.trim(), q: typed.q.trim() }));
    cursors.reset();
  };
  const filtered = Object.values(filters).some((v) => v !== '');

  return (
    <>
      <div className="row">
        <PageTitle>Inbox</PageTitle>
        <Link className="button" to="/inbox/automations">
          Inbox automations
        </Link>
      </div>
      {/* The assignee picker waits for the members, so the filters do not reflow when they arrive. */}
      <Ready loads={[members]} what="the inbox">
        <form className="filters" aria-label="Filter the inbox" onSubmit={search}>
          <Field label="Kind">
            {(id) => (
              <select id={id} value={filters.kind} onChange={(e) => set('kind', e.target.value as Kind | '')}>
                <option value="">any</option>
                {KINDS.map((k) => (
                  <option key={k} value={k}>
                    {KIND_WORDS[k]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Status">
            {(id) => (
              <select id={id} value={filters.status} onChange={(e) => set('status', e.target.value as ItemStatus | '')}>
                <option value="">any</option>
                <Options values={ITEM_STATUSES} />
              </select>
            )}
          </Field>
          <Field label="Platform">
            {(id) => (
              <select
                id={id}
                value={filters.platform}
                onChange={(e) => set('platform', e.target.value as PlatformId | '')}
              >
                <option value="">any</option>
                <Options values={INBOX_PLATFORMS} />
              </select>
            )}
          </Field>
          <Field label="Assignee">
            {(id) => (
              <select id={id} value={filters.assignee} onChange={(e) => set('assignee', e.target.value)}>
                <option value="">anyone</option>
                <option value={me.user.id}>me</option>
                {(members.data ?? [])
                  .filter((m) => m.id !== me.user.id)
                  .map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.user.name ?? m.user.email}
                    </option>
                  ))}
              </select>
            )}
          </Field>
          <label>
            Label
            <input value={typed.label} onChange={(e) => setTyped((t) => ({ ...t, label: e.target.value }))} />
          </label>
          <label>
            Text contains
            <input type="search" value={typed.q} onChange={(e) => setTyped((t) => ({ ...t, q: e.target.value }))} />
          </label>
          <div className="actions">
            <button type="submit">Search</button>
            <button
              type="button"
              className="secondary"
              disabled={!filtered}
              onClick={() => {
                setFilters(NONE);
                setTyped({ label: '', q: '' });
                cursors.reset();
              }}
            >
              Clear filters
            </button>
          </div>
        </form>
        <Show loaded={page} what="inbox items">
          {(data) =>
            data.items.length === 0 && cursors.first ? (
              <p className="empty">
                {filtered
                  ? 'No item matches these filters.'
                  : 'No inbox items yet. Comments, mentions, messages and reviews appear here as Herald reads the connected accounts.'}
              </p>
            ) : (
              <>
                <ul className="list inbox-list" aria-busy={page.loading} aria-label="Inbox items">
                  {data.items.map((item) => (
                    <ItemRow
                      key={item.id}
                      item={item}
                      assignee={memberName(members.data, item.assignee_id, me.user.id)}
                    />
                  ))}
                </ul>
                <Pager cursors={cursors} next={data.next_cursor} />
              </>
            )
          }
        </Show>
      </Ready>
    </>
  );
}
