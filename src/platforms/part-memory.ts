// A part's pending references (`OutgoingPart.pending` and `remember`): `store` keeps what the adapter records —
// the engine on the part's row (src/features/publishing/parts.ts), a caller outside the engine or a test nowhere —
// and `pending` shows what was stored last. The object is updated in place, so a part copied with `{ ...part }`
// still sees what `remember` recorded after the copy.
import type { OutgoingPart, PendingRefs } from './types.ts';

export function partMemory(
  initial: PendingRefs = {},
  store: (refs: PendingRefs) => Promise<void> = async () => {},
): Pick<OutgoingPart, 'pending' | 'remember'> {
  const pending: Record<string, string> = { ...initial };
  return {
    pending,
    async remember(refs) {
      // Stored first: `pending` never shows a reference a restart would not find.
      await store(refs);
      for (const name of Object.keys(pending)) delete pending[name];
      Object.assign(pending, refs);
    },
  };
}
