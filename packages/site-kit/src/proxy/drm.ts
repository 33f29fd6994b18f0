import { DRM_TYPES, type DrmType } from '../schemas/drm-type.ts';

/**
 * The content type the license service expects for each DRM's license request (the service's proxy
 * samples): the raw CDM challenge as bytes, FairPlay's and NCG's form bodies, Wiseplay's JSON. Keyed
 * by name, so a DRM the token schema adds later (DRM_TYPES) is served as soon as it is there.
 */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  Widevine: 'application/octet-stream',
  PlayReady: 'application/octet-stream',
  FairPlay: 'application/x-www-form-urlencoded',
  NCG: 'application/x-www-form-urlencoded',
  Wiseplay: 'application/json',
};

/** What a proxy request may name: a DRM of the token, or ClearKey (no token type of its own). */
export type ProxyDrmType = DrmType | 'ClearKey';

export interface ProxyDrm {
  drmType: ProxyDrmType;
  /** The content type of the request forwarded to the license service. */
  contentType: string;
}

/**
 * The DRMs a request may name, by their lower-case query spelling (`widevine`, `fairplay`, ...,
 * `clearkey`, whose license is a GET without a body).
 */
export function proxyDrms(): ReadonlyMap<string, ProxyDrm> {
  return new Map<string, ProxyDrm>([
    ...DRM_TYPES.map((drmType): [string, ProxyDrm] => [
      drmType.toLowerCase(),
      { drmType, contentType: CONTENT_TYPES[drmType] ?? 'application/octet-stream' },
    ]),
    ['clearkey', { drmType: 'ClearKey', contentType: 'application/json' }],
  ]);
}
