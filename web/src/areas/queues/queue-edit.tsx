// A new queue, and an existing queue's settings with its delete (asked first: its posts keep their times and leave
// the queue).
import { Link, useNavigate, useParams } from 'react-router';
import { Confirm, ErrorNote, PageTitle, Show, useAction, useApp, useLoad } from '../../ui.tsx';
import { draftOf, QueueForm } from './queue-form.tsx';
import './queues.css';

export function QueueNewPage() {
  const { workspace } = useApp();
  const navigate = useNavigate();
  const brand = workspace?.brands[0]?.id ?? '';
  return (
    <>
      <p>
        <Link to="/queues">← All queues</Link>
      </p>
      <PageTitle>New queue</PageTitle>
      <QueueForm
        submitLabel="Create the queue"
        initial={{
          brand_id: brand,
          name: '',
          connection_ids: null,
          slots: [],
          pauses: [],
          min_spacing_minutes: 0,
          gap_policy: 'close',
        }}
        onSaved={(q) => void navigate(`/queues/${q.id}/week`)}
      />
    </>
  );
}

export function QueueEditPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const navigate = useNavigate();
  const queue = useLoad(() => herald.GET('/queues/{id}', { params: { path: { id } } }), [herald, id]);
  const remove = useAction();
  return (
    <>
      <p>
        <Link to="/queues">← All queues</Link>
      </p>
      <PageTitle>Edit queue</PageTitle>
      <Show loaded={queue} what="the queue">
        {(q) => (
          <>
            <nav className="actions sub-nav" aria-label={`More about ${q.name}`}>
              <Link to={`/queues/${q.id}/week`}>Week of slots</Link>
              <Link to={`/queues/${q.id}/suggest`}>Best times</Link>
            </nav>
            <QueueForm
              key={q.updated_at}
              queueId={q.id}
              submitLabel="Save the queue"
              initial={draftOf(q)}
              onSaved={() => undefined}
            />
            <section className="card danger-zone" aria-labelledby="delete-queue">
              <h2 id="delete-queue">Delete the queue</h2>
              <p className="meta">Its posts keep their times and publish as planned, outside any queue.</p>
              <ErrorNote error={remove.error} />
              <Confirm
                label="Delete the queue"
                title={`Delete the queue ${q.name}?`}
                description="Its posts keep their scheduled times but leave the queue. This cannot be undone."
                action="Delete"
                onConfirm={async () => {
                  const done = await remove.run(() => herald.DELETE('/queues/{id}', { params: { path: { id } } }));
                  if (done) void navigate('/queues');
                }}
              />
            </section>
          </>
        )}
      </Show>
    </>
  );
}
