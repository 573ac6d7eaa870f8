// The Inbox area of the dashboard: its routes under /app and its entry in the navigation.
import type { RouteObject } from 'react-router';
import { AutomationFormPage } from './automation-form.tsx';
import { AutomationsPage } from './automations.tsx';
import { InboxListPage } from './list.tsx';
import { RunsPage } from './runs.tsx';
import { InboxItemPage } from './thread.tsx';

export const nav = { to: '/inbox', label: 'Inbox' } as const;

export const routes: RouteObject[] = [
  { path: 'inbox', element: <InboxListPage /> },
  { path: 'inbox/automations', element: <AutomationsPage /> },
  { path: 'inbox/automations/new', element: <AutomationFormPage /> },
  { path: 'inbox/automations/:id/edit', element: <AutomationFormPage /> },
  { path: 'inbox/automations/:id/runs', element: <RunsPage /> },
  { path: 'inbox/:id', element: <InboxItemPage /> },
];
