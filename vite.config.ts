// Builds the renderer for both shells. `base: './'` keeps asset URLs relative so the same
// build works from gatehouse://app/ (Electron) and http://127.0.0.1:PORT/ (serve shell).
import { defineConfig, type Plugin } from 'vite';
import { contentSecurityPolicy } from './shared/csp.ts';

/** Puts the CSP in index.html too, so it holds even where no header is sent. */
function cspMeta(): Plugin {
  return {
    name: 'gatehouse-csp-meta',
    transformIndexHtml: {
      order: 'post',
      handler: (html) => html.replace('<head>', `<head>\n    <meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy()}" />`),
    },
  };
}

export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [cspMeta()],
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: '../out/renderer',
    emptyOutDir: true,
    sourcemap: true,
    // Vite would inline small assets as data: URLs; keep them as files under 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 4096,
    // Monaco is big; rolldown's plugin-timing report on every build is noise, not news.
    rolldownOptions: { checks: { pluginTimings: false } },
  },
});
