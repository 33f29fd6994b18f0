// The header that carries the token is the license service's (its integration guide names it): the
// local default only fits the emulator, so a real server without `header` fails loudly.
import { describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { attachLicenseAuth, LicenseAuthError, type LicenseAuthOptions } from '../src/index.ts';
import {
  makePlayer,
  rejection,
  requestLicense,
  server,
  SITE,
  TOKEN_URL,
  useLicenseAuthHarness,
} from './harness.ts';

const h = useLicenseAuthHarness();
const REMOTE = 'https://license.example.com/ri/licenseManager.do';

function attach(options: Partial<LicenseAuthOptions>, configured: Record<string, string> = {}) {
  const player = makePlayer();
  h.players.push(player);
  player.configure({ drm: { servers: configured } });
  const run = () => attachLicenseAuth(player, { contentId: 'c', tokenUrl: TOKEN_URL, ...options });
  return { player, run };
}

describe('without a header option', () => {
  test.each([
    ['one URL', { licenseServer: REMOTE }, {}],
    ['a map', { licenseServer: { 'org.w3.clearkey': REMOTE } }, {}],
    ['drm.servers the app configured', {}, { 'com.microsoft.playready': REMOTE }],
  ])(
    'a license server that is not local (%s) fails at attach, before anything is registered',
    (_, options, configured) => {
      const { player, run } = attach(options, configured);
      const before = player.getConfiguration().drm;
      let error: unknown;
      try {
        run();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(LicenseAuthError);
      expect((error as LicenseAuthError).code).toBe('INVALID_OPTIONS');
      expect((error as LicenseAuthError).message).toContain(
        `header is required for the license server ${REMOTE}`,
      );
      expect((error as LicenseAuthError).message).toContain("license service's integration guide");
      const after = player.getConfiguration().drm;
      expect([after.servers, after.failureCallback]).toEqual([
        before.servers,
        before.failureCallback,
      ]);
      // Not attached: a second try with the header works on the same player.
      expect(() =>
        attachLicenseAuth(player, {
          contentId: 'c',
          tokenUrl: TOKEN_URL,
          header: 'x-h',
          licenseServer: REMOTE,
        }),
      ).not.toThrow();
    },
  );

  test.each([
    'http://localhost:8787/ri/licenseManager.do',
    'http://127.0.0.1:8787/license',
    'http://[::1]:8787/license',
    'http://emulator.localhost/license',
    '/ri/licenseManager.do',
  ])('a local license server (%s) uses the emulator default', (url) => {
    expect(attach({ licenseServer: url }).run).not.toThrow();
  });

  test('servers of key systems the handle does not serve are not its business', () => {
    expect(attach({}, { 'com.example.drm': REMOTE }).run).not.toThrow();
  });

  test('a remote server known only at request time (from the manifest) fails there, before any token', async () => {
    const { player } = h.setup();
    const cause = h.filterError(await rejection(requestLicense(player, { uri: REMOTE })));
    expect((cause as LicenseAuthError).code).toBe('INVALID_OPTIONS');
    expect((cause as LicenseAuthError).message).toContain(REMOTE);
    expect(h.seen.token).toEqual([]);
  });
});

test('with the header given, a remote license server gets the token in it', async () => {
  const { player } = h.setup({ header: 'x-service-customdata-v2', licenseServer: REMOTE });
  const headers: Array<string | null> = [];
  const allow = {
    'access-control-allow-origin': SITE,
    'access-control-allow-headers': 'x-service-customdata-v2',
  };
  server.use(
    http.options(REMOTE, () => new HttpResponse(null, { status: 204, headers: allow })),
    http.post(REMOTE, ({ request }) => {
      headers.push(request.headers.get('x-service-customdata-v2'));
      return new HttpResponse(new Uint8Array([1]), { headers: allow });
    }),
  );
  await requestLicense(player, { uri: REMOTE });
  expect(headers).toEqual(['token-1-Widevine-movie-1']);
});
