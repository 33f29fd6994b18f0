// A stand-in license service on a real node:http server, for the proxy's own tests: it records what
// reaches it and answers what the test sets. The proxy is the Node build's (node:http transport),
// called as the web handler it is.
import type { IncomingHttpHeaders } from 'node:http';
import { createLicenseProxy, type LicenseProxyOptions, type WebHandler } from '../../src/index.ts';
import { listen, type TestServer } from '../http/server.ts';

// Made up for these tests: a site key is 32 ASCII characters.
export const SITE = {
  siteId: 'PROXYUNIT',
  siteKey: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC',
  accessKey: 'proxy-unit-access-key',
};
export const HEADER = 'x-drm-custom-data';
export const PROXY = 'https://site.example/drm/license';

export interface Arrival {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface ServiceAnswer {
  status: number;
  /** null: no content-type header. */
  contentType: string | null;
  body: string | Uint8Array;
}

export interface Service {
  licenseUrl: string;
  arrivals: Arrival[];
  /** What the service answers next (and after). */
  answer: ServiceAnswer;
  close(): Promise<void>;
}

export const LICENSE: ServiceAnswer = {
  status: 200,
  contentType: 'application/octet-stream',
  body: new Uint8Array([0x08, 0x02, 0x12, 0x00]),
};

export async function startService(): Promise<Service> {
  const service: Omit<Service, 'licenseUrl' | 'close'> = { arrivals: [], answer: LICENSE };
  const server: TestServer = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      service.arrivals.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      const { status, contentType, body } = service.answer;
      res.writeHead(status, contentType === null ? {} : { 'content-type': contentType });
      res.end(body);
    });
  });
  return Object.assign(service, {
    licenseUrl: `${server.url}/ri/licenseManager.do`,
    close: () => server.close(),
  });
}

/** The proxy in front of `service`, granting every request to user-1 unless told otherwise. */
export function proxyFor(service: Service, options: Partial<LicenseProxyOptions> = {}): WebHandler {
  return createLicenseProxy({
    ...SITE,
    licenseUrl: service.licenseUrl,
    authorize: () => ({ allow: true, userId: 'user-1' }),
    ...options,
  });
}

/** A player's license request: `POST <proxy><query>` with a CDM message. */
export const license = (query: string, init: RequestInit = {}): Request =>
  new Request(`${PROXY}${query}`, {
    method: 'POST',
    body: new Uint8Array([0x08, 0x04, 0x12, 0x10]),
    ...init,
  });
