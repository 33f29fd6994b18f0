import { createServer } from 'node:http';
import { closeServer, listen } from './static-server.ts';

/** The cookie and the app header the gate's paths ask for. */
export const GATE_COOKIE = { name: 'license-pass', value: 'member-e2e' };
export const GATE_HEADER = { name: 'x-app-session', value: 'app-session-1' };
/** The app's envelope around the CDM's challenge (`/envelope/...`). */
export const ENVELOPE = 'APP1';

export interface LicenseGate {
  /** `${url}/cookie/ri/licenseManager.do`: passes requests that carry GATE_COOKIE. */
  cookieUrl: string;
  /** `${url}/header/ri/licenseManager.do`: passes requests that carry GATE_HEADER. */
  headerUrl: string;
  /** `${url}/envelope/ri/licenseManager.do`: the challenge must come in the app's envelope, once. */
  envelopeUrl: string;
  /** What the gate turned away, in order (`<path>: <why>`). */
  refused: string[];
  close(): Promise<void>;
}

/**
 * A site's own door in front of the license service, as sites put one (their session cookie, an
 * app header, their own envelope): it checks what it asks for and forwards the request, body
 * and headers as they came, to the emulator.
 */
export async function startLicenseGate(
  upstream: string,
  pageOrigin: string,
  tokenHeader: string,
): Promise<LicenseGate> {
  const refused: string[] = [];
  const server = createServer((req, res) => {
    const cors = {
      'access-control-allow-origin': pageOrigin,
      'access-control-allow-credentials': 'true',
    };
    if (req.method === 'OPTIONS') {
      res
        .writeHead(204, {
          ...cors,
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
          'access-control-max-age': '600',
        })
        .end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const path = new URL(req.url ?? '/', 'http://gate').pathname;
        const door = path.split('/')[1] ?? '';
        let body = Buffer.concat(chunks);
        const turnAway = (why: string) => {
          refused.push(`${door}: ${why}`);
          res.writeHead(403, { ...cors, 'content-type': 'text/plain' }).end(why);
        };
        if (door === 'cookie' && !cookieOf(req.headers.cookie)) return turnAway('no cookie');
        if (door === 'header' && req.headers[GATE_HEADER.name] !== GATE_HEADER.value) {
          return turnAway('no app header');
        }
        if (door === 'envelope') {
          if (body.subarray(0, ENVELOPE.length).toString() !== ENVELOPE) {
            return turnAway('no envelope');
          }
          body = body.subarray(ENVELOPE.length);
        }
        const token = req.headers[tokenHeader];
        const answer = await fetch(upstream, {
          method: 'POST',
          body,
          headers: {
            'content-type': req.headers['content-type'] ?? 'application/octet-stream',
            ...(typeof token === 'string' && { [tokenHeader]: token }),
            origin: pageOrigin,
          },
        });
        const data = Buffer.from(await answer.arrayBuffer());
        res
          .writeHead(answer.status, {
            ...cors,
            'content-type': answer.headers.get('content-type') ?? 'application/octet-stream',
          })
          .end(data);
      })().catch((error: unknown) => {
        res.writeHead(502, cors).end(String(error));
      });
    });
  });
  const url = await listen(server);
  const at = (door: string) => `${url}/${door}/ri/licenseManager.do`;
  return {
    cookieUrl: at('cookie'),
    headerUrl: at('header'),
    envelopeUrl: at('envelope'),
    refused,
    close: () => closeServer(server),
  };
}

function cookieOf(header: string | undefined): boolean {
  return (header ?? '')
    .split(';')
    .some((part) => part.trim() === `${GATE_COOKIE.name}=${GATE_COOKIE.value}`);
}
