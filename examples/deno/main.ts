// Deno 2: deno run --allow-net --allow-env examples/deno/main.ts (SITE_ID, SITE_KEY, ACCESS_KEY and
// PORT from the environment). site-kit runs on Deno's node:crypto, as on Node.
import { createSite, siteEnv } from '../site.ts';

declare const Deno: {
  serve(
    options: { port: number; hostname?: string; onListen?: (address: { port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): unknown;
};

Deno.serve(
  {
    port: Number(process.env['PORT'] ?? 8000),
    hostname: '127.0.0.1',
    onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`),
  },
  createSite(siteEnv(process.env)),
);
