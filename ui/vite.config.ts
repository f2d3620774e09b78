import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// The desktop shell serves ui/dist through Tauri's asset protocol; there is no dev server in the loop.
export default defineConfig({
  plugins: [svelte()],
  clearScreen: false,
  build: {
    target: 'safari15',
    outDir: 'dist',
    emptyOutDir: true,
    // One JS and one CSS file keep the strict CSP ('self' only) trivially satisfied.
    cssCodeSplit: false,
    modulePreload: { polyfill: false },
  },
  resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
  test: {
    environment: 'jsdom',
    globals: true,
    include: ['src/**/*.test.ts'],
  },
});
