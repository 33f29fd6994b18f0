import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlayerRequest } from '@multidrm/site-kit';
import { siteHandlers } from '../src/msw/index.ts';
import { CID, TOKEN_SITE } from './helpers.ts';

// siteHandlers hands site-kit's endpoint options onError, authorizeTimeoutMs and requestGuard to
// both of its endpoints (token, custom data), so a test can see a decision's error, a slow decision
// and a player's unusual content type as a real site would.

const reported: { error: unknown; asked: PlayerRequest }[] = [];
class DecisionBug extends Error {}
const throwing = siteHandlers({
  site: TOKEN_SITE,
  baseUrl: 'https://throwing.test',
  authorizeToken: () => {
    throw new DecisionBug('token decision broke');
  },
  authorizeCustomData: () => {
    throw new DecisionBug('custom-data decision broke');
  },
  onError: (error, asked) => reported.push({ error, asked }),
});
// A decision that waits until site-kit gives up on it (its signal), so nothing is left pending.
const untilAborted = (_request: Request, _asked: PlayerRequest, context: { signal: AbortSignal }) =>
  new Promise<never>((_resolve, reject) =>
    context.signal.addEventListener('abort', () => reject(context.signal.reason)),
  );
const slow = siteHandlers({
  site: TOKEN_SITE,
  baseUrl: 'https://slow.test',
  authorizeTimeoutMs: 1,
  authorizeToken: untilAborted,
  authorizeCustomData: untilAborted,
});
const guarded = siteHandlers({ site: TOKEN_SITE, baseUrl: 'https://guarded.test' });
const unguarded = siteHandlers({
  site: TOKEN_SITE,
  baseUrl: 'https://unguarded.test',
  requestGuard: false,
});
const textOnly = siteHandlers({
  site: TOKEN_SITE,
  baseUrl: 'https://text-only.test',
  requestGuard: { contentTypes: ['text/plain'] },
});

const server = setupServer(...throwing, ...slow, ...guarded, ...unguarded, ...textOnly);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

const ask = (url: string, contentType = 'application/json') =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: JSON.stringify({ cid: CID, drm_type: 'Widevine' }),
  });

describe('siteHandlers endpoint options', () => {
  it('gives onError what each decision threw, as thrown, and the player a 500', async () => {
    for (const url of [throwing.tokenUrl, throwing.customDataUrl]) {
      expect((await ask(url)).status).toBe(500);
    }
    expect(reported.map(({ error }) => (error as Error).message)).toEqual([
      'token decision broke',
      'custom-data decision broke',
    ]);
    expect(reported.every(({ error }) => error instanceof DecisionBug)).toBe(true);
    expect(reported[0]?.asked).toMatchObject({ cid: CID, drmType: 'Widevine' });
  });

  it('answers 503 with Retry-After once a decision outlasts authorizeTimeoutMs', async () => {
    for (const url of [slow.tokenUrl, slow.customDataUrl]) {
      const response = await ask(url);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).not.toBeNull();
    }
  });

  it("keeps site-kit's CSRF guard unless requestGuard says otherwise", async () => {
    for (const url of [guarded.tokenUrl, guarded.customDataUrl]) {
      expect((await ask(url, 'text/plain')).status).toBe(415);
    }
    for (const url of [unguarded.tokenUrl, unguarded.customDataUrl]) {
      expect((await ask(url, 'text/plain')).status).toBe(200);
    }
    expect((await ask(textOnly.tokenUrl, 'text/plain')).status).toBe(200);
    expect((await ask(textOnly.tokenUrl)).status).toBe(415);
  });

  it("refuses options site-kit refuses, with site-kit's sentence", () => {
    expect(() => siteHandlers({ site: TOKEN_SITE, authorizeTimeoutMs: -1 })).toThrow(
      /authorizeTimeoutMs/,
    );
    expect(() => siteHandlers({ site: TOKEN_SITE, requestGuard: { contentTypes: [] } })).toThrow(
      /requestGuard.*at least one media type/,
    );
  });
});
