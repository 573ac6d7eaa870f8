// An automation's runs (GET /v1/inbox/automations/{id}/runs): one row per message it was tried on, newest first,
// with its outcome and, when it skipped, the reason in words.
import { Link, useParams } from 'react-router';
import { formatTime, PageTitle, Ready, Show, useApp, useLoad } from '../../ui.tsx';
import { Pager, useCursors } from '../../pager.tsx';
import { REASON_WORDS } from './automation-model.ts';

export function RunsPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const automation = useLoad(() => herald.GET('/inbox/automations/{id}', { params: { path: { id } } }), [herald, id]);
  const cursors = useCursors();
  const { cursor } = cursors;
  const runs = useLoad(
    () =>
      herald.GET('/inbox/automations/{id}/runs', {
        params: { path: { id }, query: { limit: 50, ...(cursor ? { cursor } : {}) } },
      }),
    [herald, id, cursor],
  );
  return (
    <>
      <p>
        <Link to="/inbox/automations">← Inbox automations</Link>
      </p>
      <PageTitle>{automation.data ? `Runs of ${automation.data.name}` : 'Automation runs'}</PageTitle>
      <Ready loads={[automation, runs]} what="runs">
        <Show loaded={runs} what="runs" empty={(d) => d.items.length === 0 && cursors.first}>
          {(page) => (
            <>
              <div className="table-wrap">
                <table aria-busy={runs.loading}>
                  <caption className="sr-only">Runs, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Outcome</th>
                      <th scope="col">Why</th>
                      <th scope="col">Message</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((r) => (
                      <tr key={r.id}>
                        <td>{formatTime(r.created_at)}</td>
                        <td>
                          <span className={`status inbox-run-${r.outcome}`}>{r.outcome.replaceAll('_', ' ')}</span>
                        </td>
                        <td>
                          {r.reason ? (
                            <>
                              Skipped: {REASON_WORDS[r.reason] ?? r.reason} <code>{r.reason}</code>
                              {r.detail ? <span className="meta"> — {r.detail}</span> : null}
                            </>
                          ) : r.response_id ? (
                            <>
                              Reply <code>{r.response_id}</code>
                            </>
                          ) : (
                            '—'
                          )}
                        </td>
                        <td>
                          <Link to={`/inbox/${r.item_id}`}>Open the message</Link>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager cursors={cursors} next={page.next_cursor} />
            </>
          )}
        </Show>
      </Ready>
    </>
  );
}
