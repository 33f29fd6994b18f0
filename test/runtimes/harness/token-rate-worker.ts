// The token workload in workerd, on Web Crypto. A Worker's clock stands still while it computes, so
// the caller times each request: GET /?workload=fresh&n=20000 issues n tokens and answers "ok".
import { createTokenIssuerAsync } from '@multidrm/site-kit/token';
import { issueMany, SITE, type Workload } from './token-rate.ts';

const issuer = createTokenIssuerAsync(SITE);

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get('n') ?? '0');
    await issueMany(
      (options) => issuer.issue(options),
      n,
      (url.searchParams.get('workload') ?? 'fresh') as Workload,
    );
    return new Response('ok');
  },
};
