// The Repurpose area of the dashboard: its routes under /app and its entry in the navigation.
import type { RouteObject } from 'react-router';
import { JobsPage } from './list.tsx';
import { NewJobPage } from './new.tsx';
import { JobPage } from './job.tsx';
import './repurpose.css';

export const nav = { to: '/repurpose', label: 'Repurpose' } as const;

export const routes: RouteObject[] = [
  { path: 'repurpose', element: <JobsPage /> },
  { path: 'repurpose/new', element: <NewJobPage /> },
  { path: 'repurpose/:id', element: <JobPage /> },
];
