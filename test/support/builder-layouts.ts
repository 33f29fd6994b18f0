import { createCipheriv, hash } from 'node:crypto';

// Tokens laid out as the license service's newest public token builders (v3.0.x, 2026) lay them
// out, written here from the v2 addendum's description (sections 2 and 6), not from their code:
// - 'compact' (the Java builder): compact JSON, section 2's member order; byte-identical to ours.
// - 'spaced' (the Python builder): `", "` and `": "` between members, non-ASCII as \uXXXX.
// - 'escaped' (the PHP builder): compact, every `/` written `\/`, non-ASCII as \uXXXX, and in the
//   policy always both key lists (the empty one beside the one that holds keys) and its zero
//   defaults ("persistent":false, "rental_duration":0, "playback_duration":0, "allowed_track_types":"ALL").
// The policy plaintext and the token JSON get the same layout; the hash is the v2 raw digest over
// the members exactly as written (drm_type as given, even in lower case).

export type BuilderLayout = 'compact' | 'spaced' | 'escaped';

export interface BuilderSite {
  siteId: string;
  siteKey: string;
  accessKey: string;
}

export interface BuilderToken {
  drmType: string;
  userId: string;
  cid: string;
  timestamp: string;
  /** The policy object, members in the order to write them. */
  policy: Record<string, unknown>;
  /** Left out when undefined (an older builder never writes key_rotation). */
  responseFormat?: string;
  keyRotation?: boolean;
}

const IV = Buffer.from('0123456789abcdef', 'latin1');

/** JSON text of `value` in a builder's layout. */
export function layoutJson(value: unknown, layout: BuilderLayout): string {
  const compact = JSON.stringify(value);
  if (layout === 'compact') return compact;
  const ascii = compact.replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  if (layout === 'escaped') return ascii.replaceAll('/', '\\/');
  // Spaces after the separators that are outside strings.
  let out = '';
  let inString = false;
  for (let i = 0; i < ascii.length; i++) {
    const c = ascii[i] as string;
    out += c;
    if (c === '\\' && inString) {
      out += ascii[++i] as string;
      continue;
    }
    if (c === '"') inString = !inString;
    else if (!inString && (c === ',' || c === ':')) out += ' ';
  }
  return out;
}

/** The PHP builder's policy: both key lists always, and its zero playback defaults. */
export function phpPolicy(policy: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...policy };
  const playback = (policy['playback_policy'] ?? {}) as Record<string, unknown>;
  out['playback_policy'] = {
    persistent: false,
    rental_duration: 0,
    playback_duration: 0,
    allowed_track_types: 'ALL',
    ...playback,
  };
  if (policy['external_key'] !== undefined) {
    const keys = policy['external_key'] as Record<string, unknown>;
    out['external_key'] = { mpeg_cenc: [], hls_aes: [], ...keys };
  }
  return out;
}

/** A v2 token as base64 text, built in `layout` (with the PHP policy defaults for 'escaped'). */
export function builderToken(
  site: BuilderSite,
  t: BuilderToken,
  layout: BuilderLayout,
): { token: string; json: string; policyText: string } {
  const policyObject = layout === 'escaped' ? phpPolicy(t.policy) : t.policy;
  const policyText = layoutJson(policyObject, layout);
  const cipher = createCipheriv('aes-256-cbc', Buffer.from(site.siteKey, 'utf8'), IV);
  const policy = Buffer.concat([cipher.update(policyText, 'utf8'), cipher.final()]).toString(
    'base64',
  );
  const digest = hash(
    'sha256',
    site.accessKey + t.drmType + site.siteId + t.userId + t.cid + policy + t.timestamp,
    'base64',
  );
  const members: Record<string, unknown> = {
    drm_type: t.drmType,
    site_id: site.siteId,
    user_id: t.userId,
    cid: t.cid,
    policy,
  };
  // The Python builder writes timestamp before response_format (the addendum's example of order).
  if (layout === 'spaced') members['timestamp'] = t.timestamp;
  if (t.responseFormat !== undefined) members['response_format'] = t.responseFormat;
  if (t.keyRotation !== undefined) members['key_rotation'] = t.keyRotation;
  if (layout !== 'spaced') members['timestamp'] = t.timestamp;
  members['hash'] = digest;
  const json = layoutJson(members, layout);
  return { token: Buffer.from(json, 'utf8').toString('base64'), json, policyText };
}
