import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));

// The dashboard is served by the API process at /dashboard (src/platform/http/dashboard.ts).
// `npm run build` writes it to dist/dashboard; the e2e tests build it to a directory of their own.
export default defineConfig({
  root,
  base: '/dashboard/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1000,
  },
  // `npm run dashboard:dev`: the API on :3000 (PORT) serves /2025-10-13; Vite proxies it.
  server: { proxy: { '/2025-10-13': `http://127.0.0.1:${process.env.API_PORT ?? 3000}` } },
});
