// The brand's lists of items: example posts, memory (each item keeps its id so the server keeps it) and documents.
import type { ReactNode } from 'react';
import type { Draft } from './draft.ts';
import type { Set } from './fields.tsx';

/** A fieldset of items, each with its remove button, and an add button until the server's limit is reached. */
function ItemList<T>({
  legend,
  items,
  onChange,
  max,
  blank,
  keyOf,
  add,
  remove,
  children,
}: {
  legend: string;
  items: T[];
  onChange(items: T[]): void;
  max: number;
  blank: T;
  keyOf(item: T, i: number): string | number;
  add: string;
  /** The remove button's text for item `n` (counted from 1). */
  remove(n: number): string;
  children(item: T, update: (item: T) => void, n: number): ReactNode;
}) {
  return (
    <fieldset className="items">
      <legend>{legend}</legend>
      {items.map((item, i) => (
        <div key={keyOf(item, i)} className="item">
          {children(item, (next) => onChange(items.map((old, j) => (j === i ? next : old))), i + 1)}
          <button type="button" className="secondary small" onClick={() => onChange(items.filter((_, j) => j !== i))}>
            {remove(i + 1)}
          </button>
        </div>
      ))}
      <button
        type="button"
        className="secondary small"
        disabled={items.length >= max}
        onClick={() => onChange([...items, blank])}
      >
        {add}
      </button>
    </fieldset>
  );
}

export function Examples({ draft, set }: { draft: Draft; set: Set }) {
  return (
    <ItemList
      legend="Example posts (up to 10, 1,000 characters each)"
      items={draft.examples}
      onChange={(examples) => set('examples', examples)}
      max={10}
      blank=""
      keyOf={(_, i) => i}
      add="Add an example"
      remove={(n) => `Remove example ${n}`}
    >
      {(example, update, n) => (
        <label>
          Example {n}
          <textarea rows={3} value={example} onChange={(e) => update(e.target.value)} />
        </label>
      )}
    </ItemList>
  );
}

export function Memory({ draft, set }: { draft: Draft; set: Set }) {
  return (
    <ItemList
      legend="Memory: facts to remember when writing (up to 50)"
      items={draft.memory}
      onChange={(memory) => set('memory', memory)}
      max={50}
      blank={{ text: '', tags: '' }}
      keyOf={(m, i) => m.id ?? `new-${i}`}
      add="Add a fact"
      remove={(n) => `Forget fact ${n}`}
    >
      {(m, update, n) => (
        <>
          <label>
            Fact {n}
            <textarea rows={2} value={m.text} onChange={(e) => update({ ...m, text: e.target.value })} />
          </label>
          <label>
            Tags of fact {n} (comma separated, up to 5)
            <input value={m.tags} onChange={(e) => update({ ...m, tags: e.target.value })} />
          </label>
        </>
      )}
    </ItemList>
  );
}

export function Documents({ draft, set }: { draft: Draft; set: Set }) {
  return (
    <ItemList
      legend="Documents: ready media of this workspace (up to 10)"
      items={draft.documents}
      onChange={(documents) => set('documents', documents)}
      max={10}
      blank={{ media_id: '', title: '' }}
      keyOf={(_, i) => i}
      add="Add a document"
      remove={(n) => `Remove document ${n}`}
    >
      {(d, update, n) => (
        <>
          <label>
            Media id of document {n}
            <input value={d.media_id} onChange={(e) => update({ ...d, media_id: e.target.value })} />
          </label>
          <label>
            Title of document {n}
            <input value={d.title} onChange={(e) => update({ ...d, title: e.target.value })} />
          </label>
        </>
      )}
    </ItemList>
  );
}
