// One inbox item (GET /v1/inbox/{id}): the message with its whole conversation, its triage, the replies asked for
// with their outcome, and the reply composer.
import { Link, useParams } from 'react-router';
import { formatTime, loadedFor, PageTitle, Ready, Show, useApp, useLoad } from '../../ui.tsx';
import { Reply } from './reply.tsx';
import { Triage } from './triage.tsx';
import {
  authorName,
  KIND_WORDS,
  ruleInWords,
  useMembers,
  type InboxResponse,
  type InboxThreadItem,
} from './shared.tsx';

function Conversation({ item }: { item: InboxThreadItem }) {
  return (
    <section aria-labelledby="thread-heading">
      <h2 id="thread-heading">Conversation</h2>
      <ol className="inbox-thread">
        {item.thread.map((m) => (
          <li
            key={m.id}
            className={`card${m.from_account ? ' own' : ''}`}
            aria-current={m.id === item.id ? 'true' : undefined}
          >
            <p className="meta">
              <strong className="author">
                {m.from_account ? `${authorName(m.author)} (the account)` : authorName(m.author)}
              </strong>
              {m.author.username ? ` @${m.author.username}` : ''} · {KIND_WORDS[m.kind]} · {formatTime(m.received_at)}
              {m.id === item.id ? ' · this item' : ''}
            </p>
            <p className="preview-text">{m.text || '(no text)'}</p>
            {m.id !== item.id ? <Link to={`/inbox/${m.id}`}>Open this message</Link> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

function ResponseRow({ response }: { response: InboxResponse }) {
  return (
    <li className="card" data-response={response.id}>
      <p className="preview-text">{response.text}</p>
      <p className="meta">
        <span className={`status inbox-${response.status}`}>{response.status}</span>{' '}
        {response.private ? 'private · ' : ''}
        {response.source === 'automation' ? 'by an automation' : 'by a person'} · asked{' '}
        {formatTime(response.created_at)}
        {response.sent_at ? ` · sent ${formatTime(response.sent_at)}` : ''}
      </p>
      {response.platform_reply_id ? (
        <p className="meta">
          Platform reply id <code>{response.platform_reply_id}</code>
          {response.permalink ? (
            <>
              {' '}
              ·{' '}
              <a href={response.permalink} target="_blank" rel="noreferrer">
                view it
              </a>
            </>
          ) : null}
        </p>
      ) : null}
      {response.error ? (
        <p className="error-inline">
          {ruleInWords(response.error.rule) ?? response.error.message} <code>{response.error.code}</code>
        </p>
      ) : null}
    </li>
  );
}

function Details({ item }: { item: InboxThreadItem }) {
  const windowOpen = item.reply_window_ends_at ? new Date(item.reply_window_ends_at) > new Date() : true;
  return (
    <dl className="inbox-facts">
      <dt>Platform</dt>
      <dd>{item.platform}</dd>
      <dt>Received</dt>
      <dd>{formatTime(item.received_at)}</dd>
      <dt>Reply window</dt>
      <dd>
        {item.reply_window_ends_at
          ? `${windowOpen ? 'open until' : 'closed since'} ${formatTime(item.reply_window_ends_at)}`
          : 'no limit'}
      </dd>
      <dt>Automations</dt>
      <dd>{item.automation_paused ? 'paused for this thread (a person answered)' : 'active'}</dd>
      {item.permalink ? (
        <>
          <dt>Link</dt>
          <dd>
            <a href={item.permalink} target="_blank" rel="noreferrer">
              View on {item.platform}
            </a>
          </dd>
        </>
      ) : null}
      {item.post_id ? (
        <>
          <dt>Post</dt>
          <dd>
            <Link to={`/posts/${item.post_id}`}>The Herald post it is on</Link>
          </dd>
        </>
      ) : null}
    </dl>
  );
}

export function InboxItemPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const loaded = loadedFor(
    useLoad(() => herald.GET('/inbox/{id}', { params: { path: { id } } }), [herald, id]),
    id,
  );
  // The members name the assignee and fill its picker: waited for, so the triage does not reflow when they arrive.
  const members = useMembers();
  return (
    <>
      <p>
        <Link to="/inbox">← Inbox</Link>
      </p>
      <Ready loads={[loaded, members]} what="the message">
        <Show loaded={loaded} what="the message">
          {(item) => (
            <>
              <PageTitle>{`${KIND_WORDS[item.kind]} from ${authorName(item.author)}`}</PageTitle>
              <div className="inbox-item">
                <div className="stack">
                  <Conversation item={item} />
                  <section aria-labelledby="responses-heading">
                    <h2 id="responses-heading">Replies</h2>
                    {item.responses.length === 0 ? (
                      <p className="empty">No reply yet.</p>
                    ) : (
                      <ul className="list" aria-label="Replies asked for">
                        {item.responses.map((r) => (
                          <ResponseRow key={r.id} response={r} />
                        ))}
                      </ul>
                    )}
                  </section>
                  {item.from_account ? (
                    <p className="meta">This is the account’s own message: answer the message it replies to.</p>
                  ) : (
                    <Reply key={item.id} item={item} onChanged={loaded.reload} />
                  )}
                </div>
                <aside className="stack" aria-label="About this message">
                  <Details item={item} />
                  <Triage item={item} members={members} onChanged={loaded.reload} />
                </aside>
              </div>
            </>
          )}
        </Show>
      </Ready>
    </>
  );
}
