import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { licenseServiceHandlers, siteHandlers } from '../src/msw/index.ts';
import { b64url, CID, KEY, KID, TOKEN_SITE } from './helpers.ts';

// A site's "too many screens" test, offline: siteHandlers' `streams` puts the user's limit in the
// tokens (and the interval in x-renewal-interval), and the kit's license service, the emulator's
// own handler, counts the screens as the emulator does.

// The site issues its tokens by the wall clock; the service's clock runs from there (under a minute).
const T0 = Date.now();
let clock = T0;
const service = licenseServiceHandlers(
  { sites: [TOKEN_SITE], keys: { [CID]: { kid: KID, key: KEY } } },
  { now: () => clock },
);
const endpoints = siteHandlers({
  site: TOKEN_SITE,
  userId: 'viewer',
  streams: { maxPerUser: 2, renewalSeconds: 20 },
});
const server = setupServer(...service, ...endpoints);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

/** What one screen's player does for one license: a fresh token from the site, then the license. */
async function screen(name: string, at: number) {
  clock = T0 + at * 1000;
  const tokenAnswer = await fetch(endpoints.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ cid: CID, drm_type: 'Widevine' }),
  });
  expect(tokenAnswer.status).toBe(200);
  const interval = tokenAnswer.headers.get('x-renewal-interval');
  // Screens of one device are told apart by a stream ID (here in the license URL's query).
  const answer = await fetch(`${service.licenseUrl}?stream_id=${name}`, {
    method: 'POST',
    headers: { [service.config.customDataHeader]: await tokenAnswer.text() },
    body: JSON.stringify({ kids: [b64url(KID)], type: 'temporary' }),
  });
  const body = (await answer.json()) as { keys?: unknown[]; errorCode?: string; message?: string };
  return { interval, body };
}

describe('siteHandlers streams: "too many screens" offline', () => {
  it('licenses two screens, refuses the third with 6003, and frees a slot once one stops renewing', async () => {
    const tv = await screen('tv', 0);
    expect(tv.interval).toBe('20');
    expect(tv.body.keys).toHaveLength(1);
    expect((await screen('phone', 1)).body.keys).toHaveLength(1);
    expect((await screen('laptop', 2)).body).toMatchObject({
      errorCode: '6003',
      message: 'Concurrent stream limit reached',
    });
    // The TV renews at its interval, each time with a fresh token; the phone stops after t = 1 s.
    for (const at of [20, 40]) expect((await screen('tv', at)).body.keys).toHaveLength(1);
    // 20 s interval + 30 s grace after its last license, the phone no longer counts.
    expect((await screen('laptop', 51)).body.errorCode).toBe('6003');
    expect((await screen('laptop', 52)).body.keys).toHaveLength(1);
    const issued = service.events
      .recent()
      .flatMap((e) => (e.type === 'license-issued' ? [[e.stream.id, e.stream.renewal]] : []));
    expect(issued).toEqual([
      ['tv', false],
      ['phone', false],
      ['tv', true],
      ['tv', true],
      ['laptop', false],
    ]);
  });

  it('refuses what cannot carry a stream limit, with a sentence', () => {
    const site = TOKEN_SITE;
    expect(() => siteHandlers({ site, streams: { maxPerUser: 0 } })).toThrow(
      'streams: maxPerUser must be a whole number of streams from 1, and renewalSeconds (optional) a whole number of seconds from 1.',
    );
    expect(() => siteHandlers({ site, streams: { maxPerUser: 2, renewalSeconds: 1.5 } })).toThrow(
      /^streams: maxPerUser must be/,
    );
    expect(() =>
      siteHandlers({
        site,
        streams: { maxPerUser: 2 },
        policy: { playback_policy: { limit: false } },
      }),
    ).toThrow(
      'streams needs a v2 policy ({ policy_version: 2, ... }): a v1 token cannot carry max_stream_per_user.',
    );
    expect(() =>
      siteHandlers({ site, streams: { maxPerUser: 2 }, authorizeToken: () => ({ allow: true }) }),
    ).toThrow(/^streams sets the policy of the default token decision/);
  });
});
