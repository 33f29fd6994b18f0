import { describe, expect, onTestFinished, test } from 'vitest';
import { HttpResponse } from 'msw';
import {
  contentIdFromSkd,
  fairPlayInitDataTransform,
  normaliseCertificate,
  spcFormBody,
  unwrapCkc,
  LicenseAuthError,
} from '../src/index.ts';
import {
  CERT_URL,
  cors,
  rejection,
  requestLicense,
  server,
  shaka,
  useLicenseAuthHarness,
} from './harness.ts';
import { http } from 'msw';

const h = useLicenseAuthHarness();
const FPS = 'com.apple.fps';
const SPC = new Uint8Array([0xfb, 0xff, 0x00, 0x10, 0x3e, 0x3f]); // base64 "+/8AED4/" needs form escaping
const CKC = new Uint8Array([0xc0, 0xc1, 0xc2, 0xc3]);
const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const utf16le = (text: string) =>
  new Uint8Array(Uint16Array.from(text, (c) => c.charCodeAt(0)).buffer);
const bytes = (data: ArrayBuffer | ArrayBufferView) =>
  data instanceof ArrayBuffer
    ? new Uint8Array(data)
    : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

describe('FairPlay license requests through Shaka', () => {
  test('the SPC goes as an spc=<base64> form body, rewritten once across retries', async () => {
    const { player } = h.setup(
      { contentId: undefined, fairplay: {} },
      {
        license: () =>
          h.seen.license.length === 1
            ? new HttpResponse('busy', cors({ status: 503 }))
            : HttpResponse.text(`<ckc>${b64(CKC)}</ckc>`, cors()),
      },
    );
    const initData = utf16le('skd://movie-fp?iv=00');
    const response = await requestLicense(player, {
      keySystem: FPS,
      body: SPC,
      initData,
      initDataType: 'skd',
    });
    const form = `spc=${encodeURIComponent(b64(SPC))}`;
    expect(h.seen.license.map((l) => new TextDecoder().decode(l.body))).toEqual([form, form]);
    expect(h.seen.license.map((l) => l.contentType)).toEqual(
      Array(2).fill('application/x-www-form-urlencoded'),
    );
    expect(h.seen.license.map((l) => l.header)).toEqual(Array(2).fill('token-1-FairPlay-movie-fp'));
    expect(h.seen.token).toEqual([{ cid: 'movie-fp', drm_type: 'FairPlay' }]);
    expect(bytes(response.data)).toEqual(CKC);
  });

  test('HLS through MSE: the cid comes from the skd:// URI in drmInfo.keySystemUris (sinf init data)', async () => {
    const { player } = h.setup(
      { contentId: undefined, fairplay: {} },
      { license: () => HttpResponse.text(b64(CKC), cors()) },
    );
    const response = await requestLicense(player, {
      keySystem: FPS,
      body: SPC,
      initData: new Uint8Array([0, 0, 0, 16, 0x73, 0x69, 0x6e, 0x66]), // a sinf box, no URI inside
      initDataType: 'sinf',
      keySystemUris: ['skd://movie-hls?iv=00'],
    });
    expect(bytes(response.data)).toEqual(CKC);
    expect(h.seen.token).toEqual([{ cid: 'movie-hls', drm_type: 'FairPlay' }]);
  });

  test('without an skd:// URI anywhere the request fails with NO_CONTENT_ID before any token', async () => {
    const { player } = h.setup({ contentId: undefined, fairplay: {} });
    const cause = h.filterError(
      await rejection(
        requestLicense(player, {
          keySystem: FPS,
          body: SPC,
          initDataType: 'sinf',
          keySystemUris: [],
        }),
      ),
    );
    expect((cause as LicenseAuthError).code).toBe('NO_CONTENT_ID');
    expect(h.seen.token).toEqual([]);
  });

  test.each([
    ['<ckc> element', `\n<ckc>${b64(CKC)}</ckc>\n`],
    ['JSON', JSON.stringify({ ckc: b64(CKC) })],
    ['bare base64', b64(CKC)],
  ])('the CKC is unwrapped from %s', async (_, answer) => {
    const { player } = h.setup({}, { license: () => HttpResponse.text(answer, cors()) });
    const response = await requestLicense(player, { keySystem: 'com.apple.fps.1_0', body: SPC });
    expect(bytes(response.data)).toEqual(CKC);
  });

  test('JSON without a ckc fails with FAIRPLAY_RESPONSE', async () => {
    const { player } = h.setup({}, { license: () => HttpResponse.json({ status: 'ok' }, cors()) });
    const cause = h.filterError(
      await rejection(requestLicense(player, { keySystem: FPS, body: SPC })),
    );
    expect((cause as LicenseAuthError).code).toBe('FAIRPLAY_RESPONSE');
  });

  test('certificateUrl is configured, and a base64 certificate answer is normalised to bytes', async () => {
    const der = new Uint8Array([0x30, 0x82, 0x01, 0x0a, 0x02, 0x01]);
    const { player } = h.setup({ fairplay: { certificateUrl: CERT_URL } });
    let certHeader: string | null = 'unset';
    server.use(
      http.get(CERT_URL, ({ request }) => {
        certHeader = request.headers.get('x-drm-custom-data');
        return HttpResponse.text(b64(der), cors());
      }),
    );
    expect(player.getConfiguration().drm.advanced![FPS]!.serverCertificateUri).toBe(CERT_URL);
    const request = shaka.net.NetworkingEngine.makeRequest(
      [CERT_URL],
      shaka.net.NetworkingEngine.defaultRetryParameters(),
    );
    const response = await player
      .getNetworkingEngine()!
      .request(shaka.net.NetworkingEngine.RequestType.SERVER_CERTIFICATE, request).promise;
    expect(bytes(response.data)).toEqual(der);
    expect(certHeader).toBeNull();
    expect(h.seen.token).toEqual([]);
  });

  test('a certificate given inline (base64) is configured as bytes', () => {
    const { player } = h.setup({ fairplay: { certificate: b64(new Uint8Array([0x30, 0x82, 7])) } });
    const configured = player.getConfiguration().drm.advanced![FPS]!.serverCertificate;
    expect(Array.from(configured ?? [])).toEqual([0x30, 0x82, 7]);
  });
});

describe('FairPlay helpers', () => {
  test('normaliseCertificate accepts DER, base64 text and PEM', () => {
    const der = new Uint8Array([0x30, 0x82, 0x02, 0x01]);
    expect(normaliseCertificate(der)).toEqual(der);
    expect(normaliseCertificate(new TextEncoder().encode(b64(der) + '\n'))).toEqual(der);
    expect(
      normaliseCertificate(`-----BEGIN CERTIFICATE-----\n${b64(der)}\n-----END CERTIFICATE-----`),
    ).toEqual(der);
    expect(() => normaliseCertificate('not a certificate!')).toThrow(
      /neither DER bytes nor base64/,
    );
  });

  test('spcFormBody escapes base64 for a form body', () => {
    expect(new TextDecoder().decode(spcFormBody(SPC))).toBe('spc=%2B%2F8AED4%2F');
  });

  test('unwrapCkc leaves binary answers alone and rejects a non-base64 <ckc>', () => {
    const binary = new Uint8Array([0xff, 0xfe, 0x00, 0x80]);
    expect(unwrapCkc(binary)).toEqual(binary);
    expect(() => unwrapCkc(new TextEncoder().encode('<ckc>!!</ckc>'))).toThrow(/not base64/);
  });

  test('contentIdFromSkd reads UTF-8 and UTF-16 skd URIs', () => {
    expect(contentIdFromSkd('skd://abc-123')).toBe('abc-123');
    expect(contentIdFromSkd(new TextEncoder().encode('skd://abc?x=1'))).toBe('abc');
    expect(contentIdFromSkd(utf16le('skd://movie-9'))).toBe('movie-9');
    expect(contentIdFromSkd('https://x/y')).toBeNull();
    expect(contentIdFromSkd(null)).toBeNull();
  });

  test('fairPlayInitDataTransform leaves init data alone unless the legacy apple polyfill is in use', () => {
    const initData = new TextEncoder().encode('skd://ab');
    const drmInfo = {
      keySystem: 'com.apple.fps',
      serverCertificate: new Uint8Array([1]),
    } as Parameters<typeof fairPlayInitDataTransform>[2];
    // Modern EME (and HLS through MSE) takes the skd URI as it is, as Shaka's own default does.
    expect(fairPlayInitDataTransform(initData, 'skd', drmInfo)).toBe(initData);
    expect(fairPlayInitDataTransform(initData, 'skd', null)).toBe(initData);
    const player = new shaka.Player();
    h.players.push(player);
    const shakaDefault = player.getConfiguration().drm.initDataTransform!;
    expect(shakaDefault(initData, 'skd', drmInfo)).toBe(initData);
  });

  test('fairPlayInitDataTransform lays out URI, content ID and certificate with LE lengths on the legacy path', () => {
    const global = globalThis as { shakaMediaKeysPolyfill?: string };
    global.shakaMediaKeysPolyfill = 'apple';
    onTestFinished(() => void (global.shakaMediaKeysPolyfill = ''));
    const cert = new Uint8Array([1, 2, 3]);
    const initData = new TextEncoder().encode('skd://ab');
    const drmInfo = { serverCertificate: cert } as Parameters<typeof fairPlayInitDataTransform>[2];
    const out = fairPlayInitDataTransform(initData, 'skd', drmInfo);
    const view = new DataView(out.buffer);
    expect(view.getUint32(0, true)).toBe(16);
    expect(new TextDecoder('utf-16le').decode(out.subarray(4, 20))).toBe('skd://ab');
    expect(view.getUint32(20, true)).toBe(4);
    expect(new TextDecoder('utf-16le').decode(out.subarray(24, 28))).toBe('ab');
    expect(view.getUint32(28, true)).toBe(3);
    expect(out.subarray(32)).toEqual(cert);
    // Same layout as Shaka's own helper.
    expect(out).toEqual(shaka.drm.FairPlay.initDataTransform(initData, 'ab', cert));
    expect(fairPlayInitDataTransform(initData, 'cenc', drmInfo)).toBe(initData);
    expect(() => fairPlayInitDataTransform(initData, 'skd', null)).toThrow(/server certificate/);
  });
});
