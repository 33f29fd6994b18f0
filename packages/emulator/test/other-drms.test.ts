// The emulator's other doors, through the HTTP server and the msw kit alike (one transport-free
// core): Widevine, PlayReady, FairPlay and Wiseplay requests in their CDMs' shapes, the token from the
// header, the query or a PlayReady challenge's <CustomData>, stand-in licenses in the service's
// format per DRM and response_format, and the three certificate endpoints.
import { createTokenIssuer, type DrmType } from '@multidrm/site-kit';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, STAND_IN_MARK, type RunningEmulator } from '../src/index.ts';
import { licenseServiceHandlers } from '../src/msw/index.ts';
import { CID, clearKeyRequest, KEY, KID, TOKEN_SITE } from './helpers.ts';

const config = { sites: [TOKEN_SITE], keys: { [CID]: { kid: KID, key: KEY } } };
const MSW_BASE = 'https://license-service.test';
const HEADER = 'x-drm-custom-data';
const issuer = createTokenIssuer(TOKEN_SITE);
const token = (drmType: DrmType, responseFormat?: 'original' | 'json') =>
  issuer.issue({
    cid: CID,
    drmType,
    policy: { policy_version: 2, playback_policy: { license_duration: 600 } },
    ...(responseFormat === undefined ? {} : { responseFormat }),
  });

// Bodies in the shapes the CDMs make; their contents are made up (the emulator cannot read them).
const WIDEVINE_CHALLENGE = Uint8Array.from([0x08, 0x01, 0x12, 0x04, 0x61, 0x62, 0x63, 0x64]);
const playReadyChallenge = (customData?: string) =>
  '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><AcquireLicense xmlns="http://schemas.microsoft.com/DRM/2007/03/protocols"><challenge><Challenge><LA><ContentHeader/>' +
  (customData === undefined ? '' : `<CustomData>${customData}</CustomData>`) +
  '</LA></Challenge></challenge></AcquireLicense></soap:Body></soap:Envelope>';
// An SPC's base64 with "+", "/" and "=", so that escaped and raw differ.
const SPC = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd++//++8=';

let running: RunningEmulator;
const server = setupServer();
const doors: Record<'HTTP server' | 'msw kit', { base: string }> = {
  'HTTP server': { base: '' },
  'msw kit': { base: MSW_BASE },
};

beforeAll(async () => {
  running = await startEmulator(config);
  doors['HTTP server'].base = running.url;
  server.use(...licenseServiceHandlers(config, { baseUrl: MSW_BASE }));
  server.listen({ onUnhandledFrame: 'bypass' });
});
afterAll(async () => {
  server.close();
  await running.close();
});

const post = (
  base: string,
  body: string | Uint8Array<ArrayBuffer>,
  headers: Record<string, string>,
  path = '/ri/licenseManager.do',
) => fetch(`${base}${path}`, { method: 'POST', headers, body });

const text = (bytes: ArrayBuffer) => new TextDecoder().decode(bytes);
const hexText = (hex: string) =>
  new TextDecoder().decode(Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16)));

describe.each(Object.keys(doors) as (keyof typeof doors)[])('%s', (door) => {
  const base = () => doors[door].base;

  it('a Widevine challenge gets a binary stand-in license; json gets it as hex', async () => {
    const original = await post(base(), WIDEVINE_CHALLENGE, {
      [HEADER]: token('Widevine'),
      'content-type': 'application/octet-stream',
    });
    expect(original.headers.get('content-type')).toBe('application/octet-stream');
    const bytes = text(await original.arrayBuffer());
    expect(bytes).toBe(
      `${STAND_IN_MARK} Widevine license, not decryptable; cid "${CID}"; temporary`,
    );

    const json = await post(base(), WIDEVINE_CHALLENGE, { [HEADER]: token('Widevine', 'json') });
    const answer = (await json.json()) as { license: string; device_info: object };
    expect(answer.license).toMatch(/^[0-9a-f]+$/);
    expect(hexText(answer.license)).toBe(bytes);
    expect(answer.device_info).toMatchObject({ device_model: 'stand-in' });
  });

  it('a PlayReady challenge with the token in <CustomData> gets the SOAP license response', async () => {
    const response = await post(base(), playReadyChallenge(token('PlayReady')), {
      'content-type': 'text/xml',
    });
    expect(response.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    const xml = await response.text();
    const license = /<License>([^<]+)<\/License>/.exec(xml)?.[1] ?? '';
    expect(xml).toContain('<AcquireLicenseResponse');
    expect(atob(license)).toContain(`${STAND_IN_MARK} PlayReady license`);

    const json = await post(base(), playReadyChallenge(), {
      [HEADER]: token('PlayReady', 'json'),
    });
    expect(((await json.json()) as { license: string }).license).toBe(xml);
  });

  it.each([
    ['URL-escaped', `spc=${encodeURIComponent(SPC)}`],
    ['raw', `spc=${SPC}`],
  ])('a FairPlay spc= body (%s) gets the CKC as base64 text', async (_how, body) => {
    const response = await post(base(), body, {
      [HEADER]: token('FairPlay'),
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(atob(await response.text())).toContain(`${STAND_IN_MARK} FairPlay license`);
  });

  it('the token may come in the query (Safari renewals), JSON-format CKC stays base64', async () => {
    const response = await post(
      base(),
      `spc=${SPC}`,
      { 'content-type': 'application/x-www-form-urlencoded' },
      `/ri/licenseManager.do?${HEADER}=${encodeURIComponent(token('FairPlay', 'json'))}`,
    );
    const answer = (await response.json()) as { license: string; license_duration: number };
    expect(atob(answer.license)).toContain(`${STAND_IN_MARK} FairPlay license`);
    expect(answer.license_duration).toBe(600);
  });

  it('a Wiseplay request (sent as JSON, as the proxy sample does) gets a binary stand-in', async () => {
    const response = await post(base(), '{"challenge":"AAAA"}', {
      [HEADER]: token('Wiseplay'),
      'content-type': 'application/json',
    });
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(text(await response.arrayBuffer())).toContain(`${STAND_IN_MARK} Wiseplay license`);
  });

  it('a ClearKey request stays a real, decryptable license under any drm_type', async () => {
    const response = await post(base(), clearKeyRequest(KID), { [HEADER]: token('FairPlay') });
    const license = (await response.json()) as { keys: { k: string }[] };
    expect(license.keys).toHaveLength(1);
  });

  it('refuses a body of another DRM than the token with the path code of the token DRM', async () => {
    const refusal = async (response: Response) =>
      ((await response.json()) as { errorCode: string }).errorCode;
    expect(
      await refusal(await post(base(), playReadyChallenge(), { [HEADER]: token('Widevine') })),
    ).toBe('7107');
    // The table's PlayReady parse codes (7201-7205), not a code of the project's own.
    expect(
      await refusal(await post(base(), WIDEVINE_CHALLENGE, { [HEADER]: token('PlayReady') })),
    ).toBe('7203');
    expect(await refusal(await post(base(), playReadyChallenge(), {}))).toBe('7206');
    expect(
      await refusal(
        await post(base(), 'spc=', {
          [HEADER]: token('FairPlay'),
          'content-type': 'application/x-www-form-urlencoded',
        }),
      ),
    ).toBe('7305');
    expect(await refusal(await post(base(), WIDEVINE_CHALLENGE, { [HEADER]: token('NCG') }))).toBe(
      '9999',
    );
  });

  it.each([
    ['Widevine', 'application/octet-stream'],
    ['PlayReady', 'application/octet-stream (or text/xml)'],
  ] as const)(
    "a %s token with a form body: 9001 for spc, saying a form is read as FairPlay's and what to send",
    async (drmType, contentType) => {
      const response = await post(base(), 'cid=movie-1&challenge=AAAA', {
        [HEADER]: token(drmType),
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(await response.json()).toMatchObject({
        errorCode: '9001',
        field: 'spc',
        detail: `The body came as a form (application/x-www-form-urlencoded), which is read as FairPlay's spc=<base64 SPC>, and has no spc parameter: a ${drmType} license request is the CDM's challenge, sent unchanged as ${contentType}.`,
      });
    },
  );

  it.each([
    ['/ri/widevineCert.do', 'application/octet-stream'],
    ['/ri/fpsCert.do', 'application/octet-stream'],
    ['/ri/fpsKeyManager.do', 'text/plain; charset=utf-8'],
  ])('GET %s?siteId= serves a stand-in certificate', async (path, type) => {
    const response = await fetch(`${base()}${path}?siteId=${TOKEN_SITE.siteId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (path === '/ri/widevineCert.do') {
      expect(text(bytes.buffer)).toContain(`${STAND_IN_MARK} Widevine service certificate`);
    } else {
      const der =
        path === '/ri/fpsCert.do'
          ? bytes
          : Uint8Array.from(atob(text(bytes.buffer)), (c) => c.charCodeAt(0));
      // An X.509 certificate in DER is a SEQUENCE (0x30) with a two-byte length.
      expect([der[0], der[1]]).toEqual([0x30, 0x82]);
      expect(new TextDecoder('latin1').decode(der)).toContain(
        'multidrm emulator stand-in FairPlay certificate',
      );
    }
  });

  it('a certificate request without siteId is 9001, for an unknown site 1003', async () => {
    const code = async (query: string) =>
      ((await (await fetch(`${base()}/ri/fpsCert.do${query}`)).json()) as { errorCode: string })
        .errorCode;
    expect(await code('')).toBe('9001');
    expect(await code('?siteId=NOPE')).toBe('1003');
  });
});
