import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The API serves the built app from dist/ in production; in dev and preview the proxy keeps one
// origin, so the HttpOnly session cookie works the same everywhere.
const api = process.env.API_URL ?? 'http://127.0.0.1:3000';
const proxy = { '/trpc': { target: api, changeOrigin: false } };

export default defineConfig({
  plugins: [react()],
  server: { proxy },
  preview: { proxy },
  build: { target: 'es2022' },
});
