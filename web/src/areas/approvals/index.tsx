// The Approvals area of the dashboard: its routes under /app and its entry in the navigation.
import type { RouteObject } from 'react-router';
import { ItemPage } from './item.tsx';
import { PolicyPage } from './policy.tsx';
import { QueuePage } from './queue.tsx';

export const nav = { to: '/approvals', label: 'Approvals' } as const;

export const routes: RouteObject[] = [
  { path: 'approvals', element: <QueuePage /> },
  { path: 'approvals/:id', element: <ItemPage /> },
  { path: 'settings/approvals', element: <PolicyPage /> },
];
