// What a Worker that uses site-kit weighs, bundled as a Workers build bundles it (bundle.ts: the
// workerd conditions, minified), measured gzip, the way Workers counts its size limit.
import { join } from 'node:path';
import { goal } from '../../../scripts/bench-goal.ts';
import { bundleWorker } from './bundle.ts';
import { table } from './measure.ts';

const BUDGET_KB = 40;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const workers: [string, string | { code: string }][] = [
  [
    'token endpoint only (@multidrm/site-kit/token)',
    {
      code: `import { createTokenHandler } from '@multidrm/site-kit/token';
let handler;
export default {
  fetch(request, env) {
    handler ??= createTokenHandler({
      siteId: env.SITE_ID, siteKey: env.SITE_KEY, accessKey: env.ACCESS_KEY,
      authorize: () => ({ allow: true, policy: { policy_version: 2, playback_policy: { license_duration: 600 } } }),
    });
    return handler(request);
  },
};`,
    },
  ],
  [
    // What a Worker that imports the entry as a namespace (or a bundler that cannot shake it) ships.
    'everything @multidrm/site-kit/token exports',
    {
      code: `import * as token from '@multidrm/site-kit/token';
export default {
  fetch() {
    return new Response(Object.keys(token).join());
  },
};`,
    },
  ],
  [
    'gateway only (@multidrm/site-kit/gateway)',
    {
      code: `import { createGatewayHandler } from '@multidrm/site-kit/gateway';
let handler;
export default {
  fetch(request, env) {
    handler ??= createGatewayHandler({
      siteKey: env.SITE_KEY,
      authorize: () => ({ allow: true, playback_policy: { limit: true, duration: 600 } }),
    });
    return handler(request);
  },
};`,
    },
  ],
  [
    'examples/workers (token endpoint and gateway)',
    join(import.meta.dirname, '../../../examples/workers/worker.ts'),
  ],
];

export default async function bench(): Promise<void> {
  const rows = [['Worker', 'minified', 'gzip', 'largest parts (rendered)', 'goal']];
  for (const [name, entry] of workers) {
    const bundle = await bundleWorker(entry);
    rows.push([
      name,
      kb(bundle.bytes),
      kb(bundle.gzipBytes),
      bundle.parts
        .slice(0, 3)
        .map(([part, bytes]) => `${part} ${kb(bytes)}`)
        .join(', '),
      name.startsWith('token endpoint only') || name.startsWith('everything')
        ? goal(
            bundle.gzipBytes <= BUDGET_KB * 1024,
            `gzip <= ${BUDGET_KB} KB`,
            name.startsWith('everything') ? 'whole token entry size' : 'token-only Worker size',
          )
        : '',
    ]);
  }
  table(rows);
}
