import type { TokenFetcher } from '../src/engine/site-client.ts';

/**
 * The site, through the app's `getToken`: each token (`token-<cid>`) waits until the test hands
 * it out, and the test sees whether the handle dropped the fetch (its signal).
 */
export function slowSite() {
  const asked: Array<{ cid: string; signal: AbortSignal; give(): void }> = [];
  const getToken: TokenFetcher = ({ cid, signal }) =>
    new Promise((resolve) => asked.push({ cid, signal, give: () => resolve(`token-${cid}`) }));
  return {
    asked,
    getToken,
    cids: () => asked.map((a) => a.cid),
    give(cid: string) {
      for (const a of asked) if (a.cid === cid) a.give();
    },
  };
}
