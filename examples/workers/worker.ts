// Cloudflare Workers (wrangler.toml beside this file): wrangler deploy. No nodejs_compat: the
// workerd export condition gives site-kit's Web Crypto build. SITE_KEY and ACCESS_KEY are secrets.
import { createSite, siteEnv, type SiteEnv } from '../site.ts';

let site: ((request: Request) => Promise<Response>) | undefined;

export default {
  fetch(request: Request, env: SiteEnv): Promise<Response> {
    // Made once per isolate, on the first request: a Worker's env exists only then.
    site ??= createSite(siteEnv({ ...env }));
    return site(request);
  },
};
