// Inbox automations (GET /v1/inbox/automations): in evaluation order, with their trigger, actions and counts;
// pause and resume (PATCH `enabled`), edit, delete, and a link to their runs.
import { Link } from 'react-router';
import { Confirm, ErrorNote, formatTime, PageTitle, Show, useAction, useApp, useLoad } from '../../ui.tsx';
import { ACTION_WORDS, triggerSummary } from './automation-model.ts';
import type { Automation } from './shared.tsx';

function AutomationCard({ automation: a, act }: { automation: Automation; act(work: () => Promise<unknown>): void }) {
  const { herald } = useApp();
  const path = { params: { path: { id: a.id } } };
  const expired = a.active_until !== null && new Date(a.active_until) <= new Date();
  return (
    <li className="card stack" data-automation={a.id}>
      <h2 className="inbox-card-title">
        {a.name}{' '}
        <span className={`status ${a.enabled && !expired ? 'active' : 'inbox-paused'}`}>
          {expired ? 'ended' : a.enabled ? 'enabled' : 'paused'}
        </span>
      </h2>
      <p className="meta">
        Position {a.position} · {triggerSummary(a)} · replies{' '}
        {a.response_mode === 'auto' ? 'sent at once' : 'wait for approval'}
        {a.active_until ? ` · active until ${formatTime(a.active_until)}` : ''}
      </p>
      <p>Actions: {a.actions.map((x) => ACTION_WORDS[x.type]).join(', ')}</p>
      <p className="meta">
        {a.stats.runs} runs: {a.stats.sent} sent, {a.stats.queued_for_approval} for approval, {a.stats.skipped} skipped
        · last acted {formatTime(a.stats.last_triggered_at)}
      </p>
      <div className="actions">
        <button
          type="button"
          className="secondary small"
          onClick={() =>
            act(() =>
              herald.PATCH('/inbox/automations/{id}', {
                ...path,
                body: { enabled: !a.enabled, response_mode: a.response_mode },
              }),
            )
          }
        >
          {a.enabled ? `Pause ${a.name}` : `Resume ${a.name}`}
        </button>
        <Link to={`/inbox/automations/${a.id}/edit`}>Edit</Link>
        <Link to={`/inbox/automations/${a.id}/runs`}>Runs</Link>
        <Confirm
          label={`Delete ${a.name}`}
          title={`Delete the automation ${a.name}?`}
          description="Its runs go with it; replies it queued or left for approval stay."
          action="Delete"
          onConfirm={() => act(() => herald.DELETE('/inbox/automations/{id}', path))}
        />
      </div>
    </li>
  );
}

export function AutomationsPage() {
  const { herald } = useApp();
  const automations = useLoad(() => herald.GET('/inbox/automations', { params: { query: { limit: 100 } } }), [herald]);
  const action = useAction();
  const act = (work: () => Promise<unknown>) => void action.run(work).then(automations.reload);
  return (
    <>
      <p>
        <Link to="/inbox">← Inbox</Link>
      </p>
      <div className="row">
        <PageTitle>Inbox automations</PageTitle>
        <Link className="button" to="/inbox/automations/new">
          New automation
        </Link>
      </div>
      <p className="meta">
        On each new message, keyword and intent automations are tried in position order, then the catch-all ones; the
        first that matches acts.
      </p>
      <ErrorNote error={action.error} />
      <Show loaded={automations} what="inbox automations" empty={(d) => d.items.length === 0}>
        {(page) => (
          <ul className="list" aria-label="Automations">
            {page.items.map((a) => (
              <AutomationCard key={a.id} automation={a} act={act} />
            ))}
          </ul>
        )}
      </Show>
    </>
  );
}
