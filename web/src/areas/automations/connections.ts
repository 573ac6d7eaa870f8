// The workspace's connections, every page of them: all of them to name a destination, the active ones to pick
// a new destination from.
import type { components } from '@herald/client';
import type { AppState } from '../../ui.tsx';

export type Connection = components['schemas']['Connection'];

export async function allConnections(herald: AppState['herald']): Promise<Connection[]> {
  const items: Connection[] = [];
  for await (const c of herald.list('/connections', { params: { query: { limit: 100 } } })) items.push(c as Connection);
  return items;
}

export async function activeConnections(herald: AppState['herald']): Promise<Connection[]> {
  return (await allConnections(herald)).filter((c) => c.status === 'active');
}

export function connectionLabel(c: Connection): string {
  return `${c.platform} · ${c.display_name ?? c.handle}${c.sandbox ? ' (sandbox)' : ''}`;
}
