// The dashboard's build (docs/dashboard.md): served by Herald under /app, built into web/dist by
// scripts/build-web.ts. The official client is compiled from its sources, so the dashboard always speaks the
// contract of this checkout.
import path from 'node:path';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: import.meta.dirname,
  base: '/app/',
  plugins: [react()],
  resolve: {
    alias: { '@herald/client': path.resolve(import.meta.dirname, '../clients/typescript/src/index.ts') },
  },
  build: {
    outDir: path.resolve(import.meta.dirname, 'dist'),
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 800,
  },
  // `npx vite web` during development: the API is the Herald running on :3000.
  server: { proxy: { '/v1': 'http://127.0.0.1:3000', '/app/api': 'http://127.0.0.1:3000' } },
});
