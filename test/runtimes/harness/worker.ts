// The Workers example as deployed, plus one route for the table: /__vectors answers the vector
// report computed inside workerd.
import site from '../../../examples/workers/worker.ts';
import type { SiteEnv } from '../../../examples/site.ts';
import { vectorReport } from './vectors.ts';

export default {
  async fetch(request: Request, env: SiteEnv): Promise<Response> {
    if (new URL(request.url).pathname === '/__vectors') {
      return new Response(JSON.stringify(await vectorReport()), {
        headers: { 'content-type': 'application/json' },
      });
    }
    return site.fetch(request, env);
  },
};
