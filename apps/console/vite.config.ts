import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// Served by the API under /console/ (apps/api/src/routes/console.ts); `npm run dev -w @parley/console`
// proxies the APIs to a Parley on :3000 while the UI reloads live.
export default defineConfig({
  base: '/console/',
  plugins: [preact()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 400 },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
});
