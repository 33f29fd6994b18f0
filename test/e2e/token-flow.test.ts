import { describe, expect, test } from 'vitest';
import { e2eSkipped, SKIP_NOTICE } from './support/chromium.ts';
import { expectDecryptedPlayback, firstAppError } from './support/playback.ts';
import { since, useSession } from './support/use-session.ts';
import { flowSetup } from './support/setups.ts';
import {
  EXTERNAL_KEY_CID,
  SAMPLE,
  SIGNED_IN_USER,
  SITE,
  type SiteLogEntry,
} from './support/site.ts';
import { SHORT_WINDOW_SECONDS } from './support/stack.ts';

/** How many tokens the site decided to give at `path`. */
function tokenDecisions(log: SiteLogEntry[], path: string): number {
  return log.filter((l) => l.source === 'token' && l.path === path && l.event.type === 'decision')
    .length;
}

// Token mode end to end: Chromium plays the encrypted sample with @multidrm/player fetching license
// tokens from a site-kit site and the emulator checking them and answering ClearKey licenses.

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

describe.skipIf(skip)('token flow in a real browser', () => {
  const session = useSession();

  const issued = () => session.stack.flow.filter((e) => e.type === 'license-issued');
  const denied = () => session.stack.flow.filter((e) => e.type === 'license-denied');

  test('token mode: the site issues a token for the signed-in user and the video plays decrypted', async () => {
    const mark = since(session);
    await session.start(flowSetup(session.stack, { id: 'token', tokenPath: '/token' }));
    await expectDecryptedPlayback(session, 'token');

    expect(mark.log()).toContainEqual({
      source: 'token',
      path: '/token',
      event: {
        type: 'decision',
        cid: SAMPLE.cid,
        drm_type: 'Widevine',
        allow: true,
        status: 200,
        user_id: SIGNED_IN_USER,
      },
    });
    expect(mark.flow()).toContainEqual(
      expect.objectContaining({
        type: 'license-issued',
        mode: 'token',
        siteId: SITE.siteId,
        userId: SIGNED_IN_USER,
        cid: SAMPLE.cid,
        kids: [SAMPLE.kid],
      }),
    );
  });

  test('token with external_key: the key comes from the token, for a cid the emulator has no key for', async () => {
    const mark = since(session);
    await session.start(
      flowSetup(session.stack, {
        id: 'external',
        tokenPath: '/token-external-key',
        contentId: EXTERNAL_KEY_CID,
      }),
    );
    await expectDecryptedPlayback(session, 'external');
    expect(mark.flow()).toContainEqual(
      expect.objectContaining({ type: 'license-issued', mode: 'token', cid: EXTERNAL_KEY_CID }),
    );
    expect(Object.keys(session.stack.emulator.config.keys)).not.toContain(EXTERNAL_KEY_CID);
  });

  test('two players at once, each with its own content ID and token, both play decrypted', async () => {
    const mark = since(session);
    await Promise.all([
      session.start(flowSetup(session.stack, { id: 'left', tokenPath: '/token' })),
      session.start(
        flowSetup(session.stack, {
          id: 'right',
          tokenPath: '/token-external-key',
          contentId: EXTERNAL_KEY_CID,
        }),
      ),
    ]);
    // Both must be past 2 s before either is paused for its screenshot.
    await Promise.all(
      ['left', 'right'].map((id) =>
        session.waitFor(id, 'playback past 2 s', (s) => s.currentTime > 2 || s.errors.length > 0),
      ),
    );
    await expectDecryptedPlayback(session, 'left');
    await expectDecryptedPlayback(session, 'right');
    const cids = mark
      .flow()
      .flatMap((e) => (e.type === 'license-issued' ? [e.cid] : []))
      .sort();
    expect(cids).toEqual([SAMPLE.cid, EXTERNAL_KEY_CID].sort());
  });

  test('the site refuses a token: the app gets TokenFetchError with the HTTP status and the site reason', async () => {
    const mark = since(session);
    await session.start(flowSetup(session.stack, { id: 'refused', tokenPath: '/token-refused' }));
    const { error, status } = await firstAppError(session, 'refused');
    expect(error.auth).toMatchObject({
      name: 'TokenFetchError',
      code: 'TOKEN_FETCH_FAILED',
      status: 403,
      reason: 'Your plan does not include this title.',
      url: `${session.stack.site.url}/token-refused`,
    });
    expect(status.currentTime).toBe(0);
    // The license request never left: no token, no license request.
    expect(mark.flow()).toEqual([]);
  });

  test("a v1 token (the main spec's format) plays too", async () => {
    const mark = since(session);
    await session.start(flowSetup(session.stack, { id: 'v1', tokenPath: '/token-v1' }));
    await expectDecryptedPlayback(session, 'v1');
    expect(mark.flow()).toContainEqual(
      expect.objectContaining({ type: 'token-checked', ok: true, version: 1 }),
    );
  });

  test('the token endpoint answers 503 for its first second (a restart): the player asks on, and it plays decrypted', async () => {
    const mark = since(session);
    await session.start(
      flowSetup(session.stack, { id: 'outage', tokenPath: '/token-after-outage?n=outage' }),
    );
    const { status } = await expectDecryptedPlayback(session, 'outage');
    // Attempts at 0, 0.25, 0.75 and 1.75 s: the first three meet the outage (503), the last a token.
    const attempts = mark
      .log()
      .filter((l) => l.path === '/token-after-outage' && l.event.type === 'decision');
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(status.licenses).toHaveLength(1);
    expect(mark.flow()).toContainEqual(expect.objectContaining({ type: 'license-issued' }));
  });

  test('the first token is refused with 7011: one fresh token, one re-sent request, and it plays decrypted', async () => {
    const mark = since(session);
    await session.start(
      flowSetup(session.stack, { id: 'stale-once', tokenPath: '/token-expired-once?n=stale-once' }),
    );
    const { status } = await expectDecryptedPlayback(session, 'stale-once');
    const refusals = mark.flow().filter((e) => e.type === 'license-denied');
    expect(refusals).toEqual([
      expect.objectContaining({ errorCode: '7011', reason: 'TOKEN_EXPIRED', status: 200 }),
    ]);
    expect(mark.flow()).toContainEqual(expect.objectContaining({ type: 'license-issued' }));
    // Exactly one refresh: two tokens from the site, two license requests, the second marked.
    expect(tokenDecisions(mark.log(), '/token-expired-once')).toBe(2);
    expect(status.licenses).toHaveLength(2);
    expect(status.licenses[0]?.credential).not.toBe(status.licenses[1]?.credential);
    expect(status.authEvents).toContain('licenseRequestSent(refreshed)');
  });

  test('a site that only ever sends stale tokens: 7011 once more after the one refresh, then the error, no storm', async () => {
    const mark = since(session);
    await session.start(flowSetup(session.stack, { id: 'expired', tokenPath: '/token-expired' }));
    const { error, status } = await firstAppError(session, 'expired');
    expect(error.auth).toMatchObject({
      name: 'LicenseServiceError',
      code: 'LICENSE_SERVICE_ERROR',
      errorCode: '7011',
      status: 200,
    });
    expect(status.currentTime).toBe(0);
    expect(mark.flow().filter((e) => e.type === 'license-issued')).toEqual([]);
    expect(denied().at(-1)).toMatchObject({ errorCode: '7011', reason: 'TOKEN_EXPIRED' });
    expect(tokenDecisions(mark.log(), '/token-expired')).toBe(2);
    expect(status.licenses).toHaveLength(2);
  });

  test("the site's access key is wrong: the app gets LicenseServiceError 7019 at once, without a refresh", async () => {
    const before = issued().length;
    const mark = since(session);
    await session.start(
      flowSetup(session.stack, { id: 'access-key', tokenPath: '/token-wrong-access-key' }),
    );
    const { error, status } = await firstAppError(session, 'access-key');
    expect(error.auth).toMatchObject({
      name: 'LicenseServiceError',
      errorCode: '7019',
      status: 200,
    });
    expect(status.currentTime).toBe(0);
    expect(issued().length).toBe(before);
    expect(tokenDecisions(mark.log(), '/token-wrong-access-key')).toBe(1);
  });

  test("a token that expires mid-session: the second period's license request is refused 7011, gets a fresh token, and playback goes on decrypted", async () => {
    const mark = since(session);
    await session.start(
      flowSetup(session.stack, {
        id: 'mid-session',
        tokenPath: '/token',
        manifestUrl: session.stack.twoPeriodManifestUrl,
        options: {
          licenseServer: { 'org.w3.clearkey': session.stack.shortWindowLicenseUrl },
          autoPrefetch: false,
        },
        // A short buffer, so the second period's init segment (and its license) comes mid-play.
        shaka: { streaming: { bufferingGoal: 2, rebufferingGoal: 1 } },
      }),
    );
    const flowBefore = session.stack.shortWindowFlow.length;
    const { status } = await expectDecryptedPlayback(session, 'mid-session', { at: 10 });
    const outcomes = session.stack.shortWindowFlow
      .slice(flowBefore)
      .flatMap((e) =>
        e.type === 'license-issued' ? ['issued'] : e.type === 'license-denied' ? [e.errorCode] : [],
      );
    expect(outcomes).toEqual(['issued', '7011', 'issued']);
    expect(status.licenses.length).toBeGreaterThanOrEqual(3);
    const [first, second] = status.licenses;
    // The second period's request left after the first token's window had passed.
    expect((second?.atMs ?? 0) - (first?.atMs ?? 0)).toBeGreaterThan(SHORT_WINDOW_SECONDS * 1000);
    expect(status.authEvents).toContain('licenseRequestSent(refreshed)');
    expect(status.licenses.at(-1)?.credential).not.toBe(first?.credential);
    expect(tokenDecisions(mark.log(), '/token')).toBe(2);
  });

  test('offline: shaka.offline.Storage stores the sample, and the stored copy plays decrypted with a fresh token', async () => {
    const mark = since(session);
    await session.start({
      ...flowSetup(session.stack, { id: 'offline', tokenPath: '/token' }),
      offline: 'store',
    });
    const { status } = await expectDecryptedPlayback(session, 'offline');
    expect(status.storedUri).toMatch(/^offline:/);
    expect(status.licenses).toHaveLength(1);
    expect(tokenDecisions(mark.log(), '/token')).toBe(1);
    expect(mark.flow()).toContainEqual(
      expect.objectContaining({ type: 'license-issued', cid: SAMPLE.cid }),
    );
  });

  test('a slow token endpoint: TokenFetchError TOKEN_TIMEOUT at the configured time, not when the site answers', async () => {
    const tokenTimeoutMs = 1500;
    const siteDelayMs = 20_000;
    await session.start(
      flowSetup(session.stack, {
        id: 'slow',
        tokenPath: `/token?delay=${siteDelayMs}`,
        options: { tokenTimeoutMs },
      }),
    );
    const { error, status } = await firstAppError(session, 'slow');
    expect(error.auth).toMatchObject({ name: 'TokenFetchError', code: 'TOKEN_TIMEOUT' });
    expect(error.auth?.message).toContain(`${tokenTimeoutMs} ms`);
    // The deadline, not the site, ended the wait: well after the timeout started, far before the site.
    expect(error.atMs).toBeGreaterThanOrEqual(tokenTimeoutMs - 50);
    expect(error.atMs).toBeLessThan(siteDelayMs / 4);
    expect(status.currentTime).toBe(0);
  });

  test('unloading while a token fetch hangs returns promptly and drops the request to the site', async () => {
    const mark = since(session);
    await session.start(
      flowSetup(session.stack, {
        id: 'hang',
        tokenPath: '/token?delay=hang',
        options: { tokenTimeoutMs: 30_000 },
      }),
    );
    // Numbers of the delayed requests to the hanging endpoint that reached `type`.
    const requests = (type: 'held' | 'client-gone') =>
      mark
        .log()
        .flatMap((l) =>
          l.source === 'connection' && l.path === '/token?delay=hang' && l.event.type === type
            ? [l.event.request]
            : [],
        );
    await expect.poll(() => requests('held').length).toBe(1);
    const unloadMs = await session.unload('hang');
    // The site never answers and the token deadline is 30 s away: only the abort can end this.
    expect(unloadMs).toBeLessThan(3000);
    // The browser dropped that very request: the abort reached the network, not only the promise.
    await expect.poll(() => requests('client-gone')).toEqual(requests('held'));
    const { errors } = await session.status('hang');
    expect(errors.filter((e) => e.auth?.name === 'TokenFetchError')).toEqual([]);
    expect(mark.flow()).toEqual([]);
  });
});
