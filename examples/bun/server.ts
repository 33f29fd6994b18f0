// Bun: bun examples/bun/server.ts (SITE_ID, SITE_KEY, ACCESS_KEY and PORT from the environment).
// site-kit runs on Bun's node:crypto, as on Node.
import { createSite, siteEnv } from '../site.ts';

declare const Bun: {
  serve(options: { port: number; fetch: (request: Request) => Promise<Response> }): { url: URL };
};

const server = Bun.serve({
  port: Number(process.env['PORT'] ?? 3000),
  fetch: createSite(siteEnv(process.env)),
});
console.log(`listening on ${server.url.href.replace(/\/$/, '')}`);
