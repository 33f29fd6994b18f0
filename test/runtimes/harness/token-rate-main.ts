// node|bun|deno token-rate-main.ts <sync|async> <fresh|same> <n> <rounds>: the best round's
// tokens/s as JSON, timed inside the runtime (its clock runs; workerd's does not, see the worker).
import { createTokenIssuer, createTokenIssuerAsync } from '@multidrm/site-kit/token';
import { issueMany, SITE, type IssueOne, type Workload } from './token-rate.ts';

const [mode = 'sync', workload = 'fresh', n = '20000', rounds = '5'] = process.argv.slice(2);
const syncIssuer = createTokenIssuer(SITE);
const asyncIssuer = createTokenIssuerAsync(SITE);
const issue: IssueOne =
  mode === 'sync'
    ? (options) => syncIssuer.issue(options)
    : (options) => asyncIssuer.issue(options);

await issueMany(issue, Number(n) / 4, workload as Workload); // warm-up
let best = 0;
for (let round = 0; round < Number(rounds); round++) {
  const start = performance.now();
  await issueMany(issue, Number(n), workload as Workload);
  best = Math.max(best, (Number(n) / (performance.now() - start)) * 1000);
}
console.log(JSON.stringify({ tokensPerSecond: best }));
