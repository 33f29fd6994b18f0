import { build } from 'vite';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
const root = join(import.meta.dirname, '../../..');
const virtual = join(root, '__worker-entry.js');
const code = process.argv[2] === 'handler' ? `import { createTokenHandler } from '@multidrm/site-kit/token'; export default {fetch(r){return createTokenHandler({siteId:'x',siteKey:'y',accessKey:'z',authorize:()=>({allow:true})})(r)}}` : `import * as token from '@multidrm/site-kit/token';
export default { fetch() { return new Response(Object.keys(token).join()); } };`;
const out: any = await build({ configFile: false, logLevel: 'silent', root,
  plugins: [{ name: 'w', resolveId: (id) => (id === virtual ? id : undefined), load: (id) => (id === virtual ? code : undefined) }],
  resolve: { conditions: ['workerd', 'worker', 'browser'] },
  build: { write: false, minify: true, target: 'es2022', lib: { entry: virtual, formats: ['es'], fileName: 'worker' } } });
const chunk = (Array.isArray(out) ? out : [out]).flatMap((o: any) => o.output)[0];
console.log('total', chunk.code.length, 'gzip', gzipSync(chunk.code).length);
const rows = Object.entries(chunk.modules as Record<string, any>).map(([id, i]) => [id.replace(/.*node_modules\/\.pnpm\//, '').replace(/.*packages\/site-kit\/src\//, ''), i.renderedLength] as const).sort((a, b) => b[1] - a[1]);
let zod = 0; for (const [id, n] of rows) if (id.startsWith('zod')) zod += n;
console.log('zod total', zod);
for (const [id, n] of rows) if (!id.startsWith('zod') || n > 3000) console.log(String(n).padStart(7), id);
