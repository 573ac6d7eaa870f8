// The Automations area of the dashboard: its routes under /app and its entry in the navigation.
import type { RouteObject } from 'react-router';
import { AutomationsPage } from './list.tsx';
import { AutomationPage } from './detail.tsx';
import { EditAutomationPage, NewAutomationPage } from './edit.tsx';
import './automations.css';

export const nav = { to: '/automations', label: 'Automations' } as const;

export const routes: RouteObject[] = [
  { path: 'automations', element: <AutomationsPage /> },
  { path: 'automations/new', element: <NewAutomationPage /> },
  { path: 'automations/:id', element: <AutomationPage /> },
  { path: 'automations/:id/edit', element: <EditAutomationPage /> },
];
