// The Queues area of the dashboard: its routes under /app and its entry in the navigation.
import type { RouteObject } from 'react-router';
import { QueuesPage } from './queues-list.tsx';
import { QueueEditPage, QueueNewPage } from './queue-edit.tsx';
import { WeekPage } from './week-grid.tsx';
import { SuggestPage } from './suggestions.tsx';
import { ImportPage } from './bulk-import.tsx';
import { ImportResultPage } from './import-result.tsx';

export const nav = { to: '/queues', label: 'Queues' } as const;

export const routes: RouteObject[] = [
  { path: 'queues', element: <QueuesPage /> },
  { path: 'queues/new', element: <QueueNewPage /> },
  { path: 'queues/import', element: <ImportPage /> },
  { path: 'queues/import/:id', element: <ImportResultPage /> },
  { path: 'queues/:id', element: <QueueEditPage /> },
  { path: 'queues/:id/week', element: <WeekPage /> },
  { path: 'queues/:id/suggest', element: <SuggestPage /> },
];
