import { defineConfig, type Plugin } from 'vite';

// The built page may fetch nothing: connect-src 'none' makes the browser refuse any fetch, XHR or
// WebSocket even if a future change tried one. Only in the build: the dev server needs its socket.
const CSP = "default-src 'self'; connect-src 'none'; img-src 'self' data:; style-src 'self'";

const contentSecurityPolicy: Plugin = {
  name: 'console-csp',
  apply: 'build',
  transformIndexHtml: () => [
    {
      tag: 'meta',
      attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP },
      injectTo: 'head-prepend',
    },
  ],
};

// A static page: relative asset paths so the build runs from any folder or host path, and no
// module preload polyfill. site-kit resolves through its `browser` condition (vite's client
// default), which is its Web Crypto build.
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: './',
  plugins: [contentSecurityPolicy],
  build: { outDir: 'dist', emptyOutDir: true, modulePreload: false, target: 'es2023' },
});
