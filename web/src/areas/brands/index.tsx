// The Brands area of the dashboard: its routes under /app and its entry in the navigation.
import type { RouteObject } from 'react-router';
import { BrandsPage } from './brands-list.tsx';
import { BrandPage } from './brand-page.tsx';

export const nav = { to: '/brands', label: 'Brands' } as const;

export const routes: RouteObject[] = [
  { path: 'brands', element: <BrandsPage /> },
  { path: 'brands/:id', element: <BrandPage /> },
];
