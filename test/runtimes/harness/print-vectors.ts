// node|bun|deno test/runtimes/harness/print-vectors.ts: the runtime's vector report on stdout.
import { vectorReport } from './vectors.ts';

console.log(JSON.stringify(await vectorReport()));
