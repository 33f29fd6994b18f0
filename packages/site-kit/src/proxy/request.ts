import { CID_CONTROL as CONTROL, MAX_CID } from '../schemas/content-id.ts';
import type { ProxyDrm } from './drm.ts';
import { ProxyFailure } from './errors.ts';
import type { ProxyRequestKind } from './events.ts';

/** What a request asks the proxy, read from its method and query. */
export interface ProxyRequest {
  kind: ProxyRequestKind;
  drm: ProxyDrm;
  /** Always set for a license request. */
  cid?: string;
}

/**
 * The player names the DRM and the content in the query, as the service's proxy samples do:
 * `POST <proxy>?drmType=widevine&cid=movie-1` with the CDM message as the body (FairPlay: its
 * `spc=` form). `GET <proxy>?drmType=widevine|fairplay` asks for the certificate;
 * `POST <proxy>?drmType=ncg&mode=getserverinfo` for NCG's server info. The query never decides
 * where the request goes; only these names are read.
 */
export function readProxyRequest(
  method: string,
  url: string,
  drms: ReadonlyMap<string, ProxyDrm>,
): ProxyRequest {
  if (method !== 'POST' && method !== 'GET') {
    throw new ProxyFailure(
      'METHOD_NOT_ALLOWED',
      `Method ${method.slice(0, 20)} is not allowed: POST a license request, GET a certificate.`,
      { headers: { allow: 'GET, POST, OPTIONS' } },
    );
  }
  // The target is a path and query (node) or a whole URL (web): only the query is read.
  const at = url.indexOf('?');
  const query = readQuery(at < 0 ? '' : url.slice(at + 1));
  const drmName = single(query, 'drmType');
  const drm = drmName === undefined ? undefined : drms.get(drmName.toLowerCase());
  if (drm === undefined) {
    throw new ProxyFailure(
      'UNKNOWN_DRM',
      `drmType: must be one of ${[...drms.keys()].join(', ')} in the query, once (e.g. ?drmType=widevine&cid=movie-1).`,
    );
  }
  if (method === 'GET') return { kind: 'certificate', drm };
  if (drm.drmType === 'NCG' && query.get('mode') === 'getserverinfo') {
    return { kind: 'server-info', drm };
  }
  const cid = single(query, 'cid');
  if (cid === undefined || cid.length === 0 || cid.length > MAX_CID || CONTROL.test(cid)) {
    throw new ProxyFailure(
      'BAD_CID',
      `cid: must be the content ID in the query, once, 1 to ${MAX_CID} characters without control characters.`,
    );
  }
  return { kind: 'license', drm, cid };
}

/** Reads what requests ask (readProxyRequest), remembering the last license URLs read. */
export type ProxyRequestReader = (method: string, url: string) => ProxyRequest;

// A player posts the same URL for every license of a content (renewals, other keys, other users):
// it is read once. Bounded in count and length, so that a client sending new URLs (or long ones)
// costs the proxy a reading each, as it did without, and never memory.
const REMEMBERED_URLS = 256;
const REMEMBERED_URL_LENGTH = 512;

/**
 * readProxyRequest over `drms`, with the license requests (POST) it read remembered by URL: what a
 * request asks depends on its method and URL alone. Failures are read anew each time.
 */
export function proxyRequestReader(drms: ReadonlyMap<string, ProxyDrm>): ProxyRequestReader {
  const known = new Map<string, ProxyRequest>();
  return (method, url) => {
    if (method !== 'POST' || url.length > REMEMBERED_URL_LENGTH) {
      return readProxyRequest(method, url, drms);
    }
    let asked = known.get(url);
    if (asked === undefined) {
      asked = Object.freeze(readProxyRequest(method, url, drms));
      if (known.size >= REMEMBERED_URLS) known.clear();
      known.set(url, asked);
    }
    return asked;
  };
}

// What only URLSearchParams decodes: percent escapes, `+` for a space, and anything not printable
// ASCII (UTF-8, lone surrogates, controls).
const NOT_PLAIN = /[^\x20-\x7e]|[%+]/;

/** What the proxy reads of a query: every value of a name, in order (URLSearchParams' getAll). */
interface Query {
  get(name: string): string | null;
  getAll(name: string): string[];
}

/**
 * The query, read as URLSearchParams reads it. A query with nothing to decode (printable ASCII
 * without `%` or `+`, no leading `?`: what players send) is split by hand, which gives the same
 * names and values at a fraction of the cost; any other goes to URLSearchParams itself, which then
 * decides every case of decoding.
 */
export function readQuery(text: string): Query {
  if (NOT_PLAIN.test(text) || text.startsWith('?')) return new URLSearchParams(text);
  return new PlainQuery(text.split('&'));
}

/** The `name=value` parts of a query with nothing to decode, read in place. */
class PlainQuery implements Query {
  private readonly parts: string[];

  constructor(parts: string[]) {
    this.parts = parts;
  }

  get(name: string): string | null {
    for (const part of this.parts) {
      const value = valueOf(part, name);
      if (value !== undefined) return value;
    }
    return null;
  }

  getAll(name: string): string[] {
    const values: string[] = [];
    for (const part of this.parts) {
      const value = valueOf(part, name);
      if (value !== undefined) values.push(value);
    }
    return values;
  }
}

// The value of `name=value` (split at the first `=`), "" for a bare `name`, undefined for another
// name. An empty `name` never matches: the proxy reads no such name.
function valueOf(part: string, name: string): string | undefined {
  if (!part.startsWith(name)) return undefined;
  if (part.length === name.length) return '';
  return part.charCodeAt(name.length) === 0x3d /* = */ ? part.slice(name.length + 1) : undefined;
}

/** The one value of a query name; undefined when absent or repeated (a repeat is ambiguous). */
function single(query: Query, name: string): string | undefined {
  const values = query.getAll(name);
  return values.length === 1 ? values[0] : undefined;
}
