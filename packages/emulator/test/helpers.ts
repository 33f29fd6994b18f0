import { hash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  decodeGatewayRequest,
  encodeGatewayAnswer,
  encrypt,
  type GatewayAnswer,
  type GatewayFormat,
  type GatewayRequest,
} from '@multidrm/site-kit';

// Test credentials: made up for these tests, 32 ASCII characters as a site key must be.
export const TOKEN_SITE = {
  siteId: 'TOKENSITE',
  siteKey: 'k7Vq2ZxR9pLm4TcY8wNb3JdF6hGs1aEu',
  accessKey: 'token-site-access-key',
};
export const JSON_SITE = {
  siteId: 'JSONSITE',
  siteKey: 'Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc',
  accessKey: 'json-site-access-key',
};
export const XML_SITE = {
  siteId: 'XMLSITE',
  siteKey: 'Mn8Bv6Cx4Za2Sd1Fg3Hj5Kl7Pq9Wr0Ty',
  accessKey: 'xml-site-access-key',
};

export const CID = 'movie-1';
export const KID = '00112233445566778899aabbccddeeff';
export const KEY = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
export const OTHER_KID = 'aabbccddeeff00112233445566778899';

export const b64url = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');
export const hexOf = (b64u: string) => Buffer.from(b64u, 'base64url').toString('hex');
export const clearKeyRequest = (...kids: string[]) =>
  JSON.stringify({ kids: kids.map(b64url), type: 'temporary' });

export const LICENSE_PATH = '/ri/licenseManager.do';

export interface LicenseResult {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  /** The body exactly as received. */
  text: string;
}

/**
 * POSTs a ClearKey license request to the service's path; `header` undefined sends no custom data
 * header. `extra` adds headers, `path` replaces the path (with a query, say).
 */
export async function postLicense(
  baseUrl: string,
  header: string | undefined,
  body: string = clearKeyRequest(KID),
  extra: Record<string, string> = {},
  path: string = LICENSE_PATH,
): Promise<LicenseResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
  if (header !== undefined) headers['x-drm-custom-data'] = header;
  const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers, body });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: JSON.parse(text) as Record<string, unknown>,
    text,
  };
}

/** The members of a refusal in the service dialect. */
export interface Refusal {
  errorCode: string;
  message: string;
  reason: string;
  field?: string;
  fix: string;
  detail: string;
}

/** Asserts an answer is a refusal in the service dialect (HTTP 200, no header that tells) and returns it. */
export function refusalOf(res: LicenseResult): Refusal {
  if (res.status !== 200 || typeof res.body['errorCode'] !== 'string') {
    throw new Error(`expected a refusal (HTTP 200 with errorCode), got ${res.status} ${res.text}`);
  }
  if (res.headers.get('x-drm-error-code') !== null) {
    throw new Error('a refusal in the service dialect carries no x-drm-error-code header');
  }
  return res.body as unknown as Refusal;
}

export type GatewayBehaviour = (
  request: GatewayRequest,
) => GatewayAnswer | { status?: number; raw: string } | 'hang' | Promise<GatewayAnswer>;

export interface TestGateway {
  url: string;
  requests: GatewayRequest[];
  behave: GatewayBehaviour;
  close(): Promise<void>;
}

/** A minimal site gateway on a real port: decodes the callback with site-kit and answers as told. */
export async function startTestGateway(
  siteKey: string,
  format: GatewayFormat,
  behave: GatewayBehaviour,
): Promise<TestGateway> {
  const hanging = new Set<() => void>();
  const gateway: TestGateway = { url: '', requests: [], behave, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const request = decodeGatewayRequest(Buffer.concat(chunks).toString('utf8'), siteKey);
        if (request.format !== format) throw new Error(`expected a ${format} callback`);
        gateway.requests.push(request);
        const outcome = await gateway.behave(request);
        if (outcome === 'hang') {
          hanging.add(() => res.destroy());
          return;
        }
        if ('raw' in outcome) {
          res.writeHead(outcome.status ?? 200, { 'content-type': 'text/plain' });
          res.end(outcome.raw);
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(encodeGatewayAnswer(outcome, siteKey));
      })().catch(() => {
        res.writeHead(500);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gateway.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/drm/gateway`;
  gateway.close = () =>
    new Promise<void>((resolve) => {
      for (const cut of hanging) cut();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return gateway;
}

/** A successful JSON answer to `request`. */
export function allowJson(
  request: GatewayRequest,
  extra: Partial<Extract<GatewayAnswer, { format: 'json' }>> = {},
): GatewayAnswer {
  return {
    format: 'json',
    error_code: '0000',
    error_message: '',
    playback_policy: { limit: false, persistent: false },
    ...extra,
    nonce: extra.nonce ?? request.nonce,
  };
}

/** A successful XML answer to `request`. */
export function allowXml(
  request: GatewayRequest,
  extra: Partial<Extract<GatewayAnswer, { format: 'xml' }>> = {},
): GatewayAnswer {
  return {
    format: 'xml',
    ERROR: '0000',
    ERRMSG: '',
    LIMIT: 'N',
    ...extra,
    NONCE: extra.NONCE ?? request.nonce,
  };
}

/** An ISO time `seconds` from now in the spec's format. */
export function inSeconds(seconds: number): string {
  return `${new Date(Date.now() + seconds * 1000).toISOString().slice(0, 19)}Z`;
}

/**
 * A token built by hand with the spec's hash (hex-text reading), for token data that site-kit's
 * strict builder refuses but a lenient or broken site could still send.
 */
export function handMadeToken(
  policy: unknown,
  options: { site?: typeof TOKEN_SITE; cid?: string } = {},
): string {
  const site = options.site ?? TOKEN_SITE;
  const fields = {
    drm_type: 'Widevine',
    site_id: site.siteId,
    user_id: 'LICENSETOKEN',
    cid: options.cid ?? CID,
    token: encrypt(JSON.stringify(policy), site.siteKey),
    timestamp: inSeconds(0),
  };
  const s = site.accessKey + Object.values(fields).join('');
  const digest = Buffer.from(hash('sha256', s, 'hex').toUpperCase(), 'latin1').toString('base64');
  return Buffer.from(JSON.stringify({ ...fields, hash: digest })).toString('base64');
}

/**
 * A v2 token built by hand (raw-digest hash, as every v2 builder), for policies that site-kit's
 * issuer refuses but a lenient or broken builder could still send.
 */
export function handMadeTokenV2(
  policy: unknown,
  options: { site?: typeof TOKEN_SITE; cid?: string; userId?: string; extra?: object } = {},
): string {
  const site = options.site ?? TOKEN_SITE;
  const fields = {
    drm_type: 'Widevine',
    site_id: site.siteId,
    user_id: options.userId ?? 'LICENSETOKEN',
    cid: options.cid ?? CID,
    policy: encrypt(JSON.stringify(policy), site.siteKey),
  };
  const timestamp = inSeconds(0);
  const s = site.accessKey + Object.values(fields).join('') + timestamp;
  const digest = hash('sha256', s, 'base64');
  return Buffer.from(
    JSON.stringify({ ...fields, ...options.extra, timestamp, hash: digest }),
  ).toString('base64');
}

/** base64 of the JSON of `value`: a header value built by hand. */
export const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
