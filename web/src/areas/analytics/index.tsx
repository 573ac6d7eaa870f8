// The Analytics area of the dashboard: its routes under /app and its entry in the navigation. Its pages load on
// first visit, so the charting library is not in every other page's download.
import type { RouteObject } from 'react-router';

export const nav = { to: '/analytics', label: 'Analytics' } as const;

export const routes: RouteObject[] = [
  {
    path: 'analytics',
    lazy: async () => ({ Component: (await import('./summary-page.tsx')).AnalyticsPage }),
  },
  {
    path: 'analytics/posts/:id',
    lazy: async () => ({ Component: (await import('./post-metrics.tsx')).PostMetricsPage }),
  },
];
