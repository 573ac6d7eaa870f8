// Sending one action on an item with the version the page loaded; a conflict (the item changed or is no longer
// pending) goes to the page, which says so and reloads, while any other refusal stays next to its form.
import type { components } from '@herald/client';
import { useAction, useApp } from '../../ui.tsx';
import { isConflict, type Item } from './shared.tsx';

type ItemAction = components['schemas']['ApprovalItemAction'];

export function useItemAction(item: Item, onDecided: () => void, onConflict: (error: unknown) => void) {
  const { herald } = useApp();
  const action = useAction();
  const send = async (body: Omit<ItemAction, 'version'>) => {
    let conflict: unknown;
    const done = await action.run(async () => {
      try {
        return await herald.POST('/approvals/items/{id}/actions', {
          params: { path: { id: item.id } },
          body: { ...body, version: item.version },
        });
      } catch (error) {
        if (!isConflict(error)) throw error;
        conflict = error;
        return undefined;
      }
    });
    if (conflict) onConflict(conflict);
    else if (done) onDecided();
  };
  return { ...action, send };
}
