// One approval request: what was asked and by whom, the preview per platform, the decision forms while it is
// pending, its history and comments. A decision refused because the request changed since the page loaded it is
// said in words with its code, the page reloads, and it links the request that replaced it.
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { describeError } from '../../api.ts';
import { ErrorNote, formatTime, loadedFor, PageTitle, Ready, Show, useApp, useLoad } from '../../ui.tsx';
import { DecideSection } from './decide.tsx';
import { CommentsSection, HistorySection } from './history.tsx';
import { limitsOf, PreviewSection } from './preview.tsx';
import { brandName, conflictSentence, personName, previewOf, proposal, useNames, type Item } from './shared.tsx';
import './approvals.css';

function StaleNotice({ error }: { error: unknown }) {
  const { message, code, requestId } = describeError(error);
  return (
    <div className="error stale" role="alert" data-testid="stale-notice">
      <p>
        <strong>Not decided: this request changed since you opened it.</strong> {conflictSentence(code)} The page now
        shows the request as it is.
      </p>
      <p>{message}</p>
      <p className="meta">
        Code <code>{code}</code>
        {requestId ? (
          <>
            {' '}
            · request <code>{requestId}</code>
          </>
        ) : null}
      </p>
    </div>
  );
}

function Facts({ item, names }: { item: Item; names: Map<string, string> }) {
  const { workspace } = useApp();
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        <span className={`status ${item.status}`} data-testid="item-status">
          {item.status}
        </span>{' '}
        <span className="meta">version {item.version}</span>
      </dd>
      <dt>Asked</dt>
      <dd>
        {proposal(item, formatTime)}, by {personName(names, item.requested_by)} on {formatTime(item.requested_at)}
      </dd>
      <dt>Brand and source</dt>
      <dd>
        {brandName(workspace?.brands, item.brand_id)} · {item.kind} from {item.source.type}
        {item.batch_id ? ` (batch ${item.batch_id})` : ''}
      </dd>
      <dt>Expires</dt>
      <dd>{item.expires_at ? formatTime(item.expires_at) : 'never'}</dd>
      {item.decided_at ? (
        <>
          <dt>Decided</dt>
          <dd>
            {item.status} by {personName(names, item.decided_by)} on {formatTime(item.decided_at)}
            {item.reason ? <span className="preview-text"> — “{item.reason}”</span> : null}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

export function ItemPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const namesLoad = useNames();
  const names = namesLoad.data ?? new Map<string, string>();
  const [stale, setStale] = useState<unknown>();
  const item = loadedFor(
    useLoad(() => herald.GET('/approvals/items/{id}', { params: { path: { id } } }), [herald, id]),
    id,
  );
  const subject = item.data?.kind === 'post' ? item.data.subject.id : undefined;
  // Until the post's answer is for this subject, the preview waits: its media list would otherwise show bare ids.
  const post = loadedFor(
    useLoad(
      async () => (subject ? herald.GET('/posts/{id}', { params: { path: { id: subject } } }) : null),
      [herald, subject, item.data?.version],
    ),
    subject,
  );
  const platforms = useLoad(() => herald.GET('/platforms'), [herald]);
  const reload = () => item.reload();
  const conflict = (error: unknown) => {
    setStale(error);
    item.reload();
  };
  const current = post.data?.approval?.item_id;

  return (
    <>
      <p>
        <Link to="/approvals">← The review queue</Link>
      </p>
      <PageTitle>Approval request</PageTitle>
      {stale ? <StaleNotice error={stale} /> : null}
      <Show loaded={item} what="the request">
        {(data) => (
          <Ready loads={[post, platforms, namesLoad]} what="the preview">
            <Facts item={data} names={names} />
            {current && current !== data.id ? (
              <p className="warning">
                The post has a newer request: <Link to={`/approvals/${current}`}>open the current request</Link>.
              </p>
            ) : null}
            <ErrorNote error={post.error} />
            {post.data ? (
              <p>
                <Link to={`/posts/${post.data.id}`}>Open the post</Link>{' '}
                <span className="meta">(now {post.data.status})</span>
              </p>
            ) : null}
            <PreviewSection
              preview={previewOf(data)}
              limits={limitsOf(platforms.data)}
              media={post.data?.media ?? []}
            />
            {data.status === 'pending' ? (
              <DecideSection
                key={data.version}
                item={data}
                post={post.data ?? undefined}
                limits={limitsOf(platforms.data)}
                onDecided={reload}
                onConflict={conflict}
              />
            ) : null}
            <HistorySection item={data} names={names} />
            <CommentsSection item={data} names={names} onChanged={reload} onConflict={conflict} />
          </Ready>
        )}
      </Show>
    </>
  );
}
