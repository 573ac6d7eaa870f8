// The queue's settings as one form, for a new queue (POST /v1/queues) and an existing one (PATCH
// /v1/queues/{id}): brand, name, which accounts it takes posts for, weekly slots, pauses, spacing and gap policy.
import { useState, type FormEvent } from 'react';
import type { components } from '@herald/client';
import { BrandOptions, ErrorNote, Ready, Show, useAction, useApp, useLoad, type Loaded } from '../../ui.tsx';
import { PauseEditor, SlotEditor } from './slot-editor.tsx';
import type { Queue, WeeklySlot } from './shared.ts';

type Connection = components['schemas']['Connection'];

export interface QueueDraft {
  brand_id: string;
  name: string;
  connection_ids: string[] | null;
  slots: WeeklySlot[];
  pauses: string[];
  min_spacing_minutes: number;
  gap_policy: 'close' | 'leave';
}

export function draftOf(queue: Queue): QueueDraft {
  const { brand_id, name, connection_ids, slots, pauses, min_spacing_minutes, gap_policy } = queue;
  return { brand_id, name, connection_ids, slots, pauses, min_spacing_minutes, gap_policy };
}

function Accounts({
  connections,
  brandId,
  value,
  onChange,
}: {
  connections: Loaded<Connection[]>;
  brandId: string;
  value: string[] | null;
  onChange(ids: string[] | null): void;
}) {
  return (
    <fieldset>
      <legend>Accounts</legend>
      <label className="check">
        <input type="radio" name="accounts" checked={value === null} onChange={() => onChange(null)} />
        <span>Any account of the brand</span>
      </label>
      <label className="check">
        <input type="radio" name="accounts" checked={value !== null} onChange={() => onChange(value ?? [])} />
        <span>Only these accounts</span>
      </label>
      {value !== null ? (
        <Show
          loaded={connections}
          what="accounts of this brand"
          empty={(all) => !all.some((c) => c.brand_id === brandId)}
        >
          {(all) =>
            all
              .filter((c) => c.brand_id === brandId)
              .map((c) => (
                <label key={c.id} className="check indent">
                  <input
                    type="checkbox"
                    checked={value.includes(c.id)}
                    onChange={(e) => onChange(e.target.checked ? [...value, c.id] : value.filter((x) => x !== c.id))}
                  />
                  <span>
                    {c.platform} · {c.display_name ?? c.handle}
                    {c.sandbox ? ' (sandbox)' : ''}
                  </span>
                </label>
              ))
          }
        </Show>
      ) : null}
    </fieldset>
  );
}

export function QueueForm({
  initial,
  queueId,
  submitLabel,
  onSaved,
}: {
  initial: QueueDraft;
  /** The queue being edited; none: a new queue. */
  queueId?: string;
  submitLabel: string;
  onSaved(queue: Queue): void;
}) {
  const { herald } = useApp();
  const isNew = queueId === undefined;
  // Read before the form shows, so choosing "only these accounts" never waits and nothing moves when they arrive.
  const connections = useLoad(async () => {
    const items: Connection[] = [];
    for await (const c of herald.list('/connections', { params: { query: { limit: 100 } } })) items.push(c);
    return items;
  }, [herald]);
  const [draft, setDraft] = useState<QueueDraft>(initial);
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const set = <K extends keyof QueueDraft>(key: K, value: QueueDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setSaved(false);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const { brand_id, ...fields } = draft;
    const made = await save.run(() =>
      queueId === undefined
        ? herald.POST('/queues', { body: { brand_id, ...fields } })
        : herald.PATCH('/queues/{id}', { params: { path: { id: queueId } }, body: fields }),
    );
    if (made) {
      setSaved(true);
      onSaved(made);
    }
  };

  return (
    <Ready loads={[connections]} what="the brand's accounts">
      <form className="stack queue-form" aria-label="Queue settings" onSubmit={(e) => void submit(e)}>
        <div className="inline">
          <label>
            Brand
            <select
              value={draft.brand_id}
              disabled={!isNew}
              onChange={(e) => {
                set('brand_id', e.target.value);
                // Accounts belong to a brand: a restriction chosen for another brand means nothing here.
                set('connection_ids', null);
              }}
            >
              <BrandOptions />
            </select>
          </label>
          <label className="grow">
            Name
            <input required value={draft.name} onChange={(e) => set('name', e.target.value)} maxLength={200} />
          </label>
        </div>
        <Accounts
          connections={connections}
          brandId={draft.brand_id}
          value={draft.connection_ids}
          onChange={(ids) => set('connection_ids', ids)}
        />
        <SlotEditor slots={draft.slots} onChange={(slots) => set('slots', slots)} />
        <PauseEditor pauses={draft.pauses} onChange={(pauses) => set('pauses', pauses)} />
        <fieldset>
          <legend>Spacing and gaps</legend>
          <label>
            Minimum minutes between two posts on one account (0: none)
            <input
              type="number"
              min={0}
              step={1}
              required
              value={draft.min_spacing_minutes}
              onChange={(e) => set('min_spacing_minutes', Number(e.target.value))}
            />
          </label>
          <p className="meta">When a queued post is cancelled, deleted, published now or given its own time:</p>
          <label className="check">
            <input
              type="radio"
              name="gap"
              checked={draft.gap_policy === 'close'}
              onChange={() => set('gap_policy', 'close')}
            />
            <span>Close the gap: later posts move up</span>
          </label>
          <label className="check">
            <input
              type="radio"
              name="gap"
              checked={draft.gap_policy === 'leave'}
              onChange={() => set('gap_policy', 'leave')}
            />
            <span>Leave the slot free for the next post added</span>
          </label>
        </fieldset>
        <ErrorNote error={save.error} />
        <div className="actions">
          <button type="submit" disabled={save.busy}>
            {submitLabel}
          </button>
          <span role="status" className="meta">
            {saved && !isNew ? 'Saved. Waiting posts were moved to the slots the new rules give.' : ''}
          </span>
        </div>
      </form>
    </Ready>
  );
}
