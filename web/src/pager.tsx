// Cursor paging as every list does it (docs/api.md "Paging"). The API only hands out the next page's cursor, so
// going back means keeping the cursors of the pages before this one: "Previous" pops, "Next" pushes.
import { useState } from 'react';

export interface Cursors {
  /** The cursor of the page shown, undefined on the first page. */
  cursor: string | undefined;
  first: boolean;
  push(next: string): void;
  pop(): void;
  reset(): void;
}

export function useCursors(): Cursors {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    cursor: cursors.at(-1),
    first: cursors.length === 0,
    push: (next) => setCursors((c) => [...c, next]),
    pop: () => setCursors((c) => c.slice(0, -1)),
    reset: () => setCursors([]),
  };
}

export function Pager({ cursors, next }: { cursors: Cursors; next: string | null | undefined }) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="secondary" disabled={cursors.first} onClick={cursors.pop}>
        Previous page
      </button>
      <button type="button" className="secondary" disabled={!next} onClick={() => next && cursors.push(next)}>
        Next page
      </button>
    </nav>
  );
}
