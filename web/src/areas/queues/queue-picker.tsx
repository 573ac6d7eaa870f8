// The composer's "Add to queue" choice: which queue, and whether the post takes the next free slot or the one after
// the last taken. The composer sends them as `queue` and `queue_id` on POST /v1/posts instead of a time.
import { useId } from 'react';
import { Link } from 'react-router';
import { Show, useApp, useLoad } from '../../ui.tsx';
import './queues.css';

export interface QueueChoice {
  queueId: string;
  position: 'next' | 'last';
}

export function QueuePicker({ value, onChange }: { value: QueueChoice; onChange(choice: QueueChoice): void }) {
  const { herald, workspace } = useApp();
  const queues = useLoad(async () => {
    const page = await herald.GET('/queues');
    // Nothing chosen yet: the first queue, so the form is ready to send as it stands.
    if (!value.queueId && page.items[0]) onChange({ ...value, queueId: page.items[0].id });
    return page;
  }, [herald]);
  // A label beside the select rather than around it: the select's name is then "Queue" alone, not its option too.
  const selectId = useId();
  const brand = (id: string) => workspace?.brands.find((b) => b.id === id)?.name ?? id;
  return (
    <div className="queue-picker">
      <Show loaded={queues} what="queues" empty={(d) => d.items.length === 0}>
        {(page) => (
          <div className="inline">
            <div className="field">
              <label htmlFor={selectId}>Queue</label>
              <select
                id={selectId}
                value={value.queueId}
                onChange={(e) => onChange({ ...value, queueId: e.target.value })}
              >
                {page.items.map((q) => (
                  <option key={q.id} value={q.id}>
                    {q.name} ({brand(q.brand_id)}, {q.slots.length} slots a week)
                  </option>
                ))}
              </select>
            </div>
            <fieldset className="plain">
              <legend>Position</legend>
              <label className="check">
                <input
                  type="radio"
                  name="queue-position"
                  checked={value.position === 'next'}
                  onChange={() => onChange({ ...value, position: 'next' })}
                />
                <span>Next free slot</span>
              </label>
              <label className="check">
                <input
                  type="radio"
                  name="queue-position"
                  checked={value.position === 'last'}
                  onChange={() => onChange({ ...value, position: 'last' })}
                />
                <span>After the last queued post</span>
              </label>
            </fieldset>
          </div>
        )}
      </Show>
      {queues.data?.items.length === 0 ? (
        <p className="meta">
          <Link to="/queues/new">Create a queue</Link> to add posts to it.
        </p>
      ) : null}
    </div>
  );
}
