// One automation: what it is, run now, pause and resume, archive, the dry-run preview, and its runs (looked at
// again every two seconds while one is queued or running).
import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import {
  Confirm,
  ErrorNote,
  formatTime,
  loadedFor,
  PageTitle,
  Ready,
  Show,
  useAction,
  useApp,
  useLoad,
} from '../../ui.tsx';
import { allConnections, connectionLabel, type Connection } from './connections.ts';
import { describeSource, OUTPUT_MODES, type Automation } from './model.ts';
import { PreviewSection, type Preview } from './preview.tsx';
import { RunsList, UNFINISHED } from './runs.tsx';

function destinationLabel(d: Automation['destinations'][number], connections: Connection[]): string {
  if (d.platform) return `${d.platform} (the brand's default account)`;
  const found = connections.find((c) => c.id === d.connection_id);
  return found ? connectionLabel(found) : (d.connection_id ?? '');
}

function Summary({ a, connections }: { a: Automation; connections: Connection[] }) {
  const g = a.generator;
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        <span className={`status ${a.status}`} data-testid="automation-status">
          {a.status}
        </span>
        {a.consecutive_failures ? ` · ${a.consecutive_failures} failed runs in a row` : ''}
      </dd>
      <dt>When</dt>
      <dd>{describeSource(a.source)}</dd>
      <dt>Writes</dt>
      <dd>
        {g.type}
        {g.type === 'template' && g.template ? `: ${g.template}` : ''}
        {g.type === 'library' ? `: ${g.items?.length ?? 0} texts` : ''}
        {g.type === 'llm_topic' ? `: ${g.topic ?? ''}` : ''}
        {g.type === 'repurpose' ? ` as a ${g.format ?? 'post'}` : ''}
        {g.count ? ` · ${g.count} per run` : ''}
      </dd>
      <dt>Posts to</dt>
      <dd>
        {a.destinations.map((d) => destinationLabel(d, connections)).join('; ')}
        {a.destinations.some((d) => d.content_override) ? ' · with their own templates' : ''}
      </dd>
      <dt>Output</dt>
      <dd>
        {OUTPUT_MODES.find(([m]) => m === a.output.mode)?.[1] ?? a.output.mode}
        {a.output.schedule_expr ? ` (${a.output.schedule_expr} after the run)` : ''}
      </dd>
      <dt>Next run</dt>
      <dd>{formatTime(a.next_run_at)}</dd>
      <dt>Last run</dt>
      <dd>{formatTime(a.last_run_at)}</dd>
      <dt>Last error</dt>
      <dd>
        {a.last_error ? (
          <span className="error-inline">
            {a.last_error.message} <code>{a.last_error.code}</code>
          </span>
        ) : (
          'none'
        )}
      </dd>
    </dl>
  );
}

export function AutomationPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const navigate = useNavigate();
  const location = useLocation();
  const [preview, setPreview] = useState<Preview | undefined>(
    () => (location.state as { preview?: Preview } | null)?.preview,
  );
  const automation = loadedFor(
    useLoad(() => herald.GET('/automations/{id}', { params: { path: { id } } }), [herald, id]),
    id,
  );
  const runs = useLoad(
    () => herald.GET('/automations/{id}/runs', { params: { path: { id }, query: { limit: 20 } } }),
    [herald, id],
  );
  const connections = useLoad(() => allConnections(herald), [herald]);
  const action = useAction();
  const busy = runs.data?.items.some((r) => UNFINISHED.has(r.status)) ?? false;
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(runs.reload, 2000);
    return () => {
      clearInterval(timer);
      // The run just ended: its times and error are on the automation too.
      automation.reload();
    };
  }, [busy, runs.reload, automation.reload]);

  const act = async (path: '/automations/{id}/pause' | '/automations/{id}/resume' | '/automations/{id}/trigger') => {
    const done = await action.run(() => herald.POST(path, { params: { path: { id } } }));
    if (done) {
      automation.reload();
      runs.reload();
    }
  };

  return (
    <>
      <p>
        <Link to="/automations">← All automations</Link>
      </p>
      <Show loaded={automation} what="the automation">
        {(a) => (
          <>
            <PageTitle>{a.name}</PageTitle>
            <Ready loads={[runs, connections]} what="its runs">
              <section className="card" aria-label="About this automation">
                <Summary a={a} connections={connections.data ?? []} />
                <div className="actions reserved">
                  {a.status !== 'archived' ? (
                    <>
                      <button
                        type="button"
                        disabled={action.busy}
                        onClick={() => void act('/automations/{id}/trigger')}
                      >
                        Run now
                      </button>
                      {a.status === 'active' ? (
                        <button
                          type="button"
                          className="secondary"
                          disabled={action.busy}
                          onClick={() => void act('/automations/{id}/pause')}
                        >
                          Pause
                        </button>
                      ) : (
                        <button
                          type="button"
                          className="secondary"
                          disabled={action.busy}
                          onClick={() => void act('/automations/{id}/resume')}
                        >
                          Resume
                        </button>
                      )}
                      <Link className="button secondary-link" to={`/automations/${a.id}/edit`}>
                        Edit
                      </Link>
                      <Confirm
                        label="Archive"
                        title={`Archive ${a.name}?`}
                        description="It never runs again; its runs and the posts it made stay."
                        action="Archive"
                        onConfirm={async () => {
                          const done = await action.run(() =>
                            herald.DELETE('/automations/{id}', { params: { path: { id } } }),
                          );
                          if (done !== undefined) void navigate('/automations');
                        }}
                      />
                    </>
                  ) : (
                    <p className="meta">Archived: it never runs again.</p>
                  )}
                </div>
                <ErrorNote error={action.error} />
              </section>
              <PreviewSection id={a.id} preview={preview} setPreview={setPreview} disabled={a.status === 'archived'} />
              <RunsList runs={runs} />
            </Ready>
          </>
        )}
      </Show>
    </>
  );
}
