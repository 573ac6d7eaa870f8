// The Calendar area of the dashboard: its routes under /app and its entry in the navigation.
import type { RouteObject } from 'react-router';
import { CalendarPage } from './calendar-page.tsx';

export const nav = { to: '/calendar', label: 'Calendar' } as const;

export const routes: RouteObject[] = [{ path: 'calendar', element: <CalendarPage /> }];
