// msw standing in for the site's token endpoint and the license server, for every adapter's tests.
import { setupServer } from 'msw/node';
import { http, HttpResponse, type HttpResponseResolver } from 'msw';

/** happy-dom's page origin: the site's own endpoints are same-origin. */
export const SITE = 'http://localhost:3000';
/** The license server lives on another origin, so every request goes through a CORS preflight. */
export const LICENSE_ORIGIN = 'http://127.0.0.1:8443';
export const TOKEN_URL = `${SITE}/api/drm-token`;
export const LICENSE_URL = `${LICENSE_ORIGIN}/license`;
export const CERT_URL = `${LICENSE_ORIGIN}/fairplay.cer`;

const CORS = {
  'access-control-allow-origin': SITE,
  'access-control-allow-credentials': 'true',
  'access-control-allow-methods': 'POST, GET',
  'access-control-allow-headers': 'x-drm-custom-data, x-other-header, content-type',
  'access-control-expose-headers': 'content-type',
};

export const server = setupServer();

export interface Seen {
  token: Array<{ cid: string; drm_type: string }>;
  license: Array<{ header: string | null; contentType: string | null; body: Uint8Array }>;
}

export function cors(init: ResponseInit = {}): ResponseInit {
  return { ...init, headers: { ...CORS, ...(init.headers as Record<string, string>) } };
}

/** The preflight handler for the license origin, needed by every license-server mock. */
export const preflight = http.options(
  `${LICENSE_ORIGIN}/*`,
  () => new HttpResponse(null, cors({ status: 204 })),
);

export function tokenEndpoint(seen: Seen, answer?: HttpResponseResolver, url = TOKEN_URL) {
  let n = 0;
  return http.post(url, async (info) => {
    const body = (await info.request.clone().json()) as { cid: string; drm_type: string };
    seen.token.push(body);
    n++;
    if (answer) return answer(info);
    return HttpResponse.text(`token-${n}-${body.drm_type}-${body.cid}`);
  });
}

export function licenseServer(seen: Seen, answer?: HttpResponseResolver, url = LICENSE_URL) {
  return http.post(url, async (info) => {
    seen.license.push({
      header: info.request.headers.get('x-drm-custom-data'),
      contentType: info.request.headers.get('content-type'),
      body: new Uint8Array(await info.request.clone().arrayBuffer()),
    });
    if (answer) return answer(info);
    return new HttpResponse(new Uint8Array([1, 2, 3]), cors());
  });
}

export const newSeen = (): Seen => ({ token: [], license: [] });

export const text = (data: ArrayBuffer | ArrayBufferView): string =>
  new TextDecoder().decode(
    data instanceof ArrayBuffer
      ? data
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  );
