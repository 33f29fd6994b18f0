import type { Grant } from './authorization.ts';
import type { ContentKey } from './config.ts';
import { EmulatorError } from './errors.ts';

/**
 * Picks the content keys for the requested key IDs (all hex). An external key from the site
 * (external_key.mpeg_cenc or PACKINFO) wins over the configured keys of the cid; an external key
 * without key ID is taken to be the key of every requested key ID, as the site vouches for it.
 * Every requested key ID must be covered, or nothing is issued.
 */
export function selectKeys(
  requestedKids: readonly string[],
  cid: string,
  externalKey: Grant['externalKey'],
  configured: Readonly<Record<string, readonly ContentKey[]>>,
): ContentKey[] {
  let available: readonly ContentKey[];
  let source: string;
  if (externalKey !== undefined) {
    available =
      externalKey.kid === undefined
        ? requestedKids.map((kid) => ({ kid, key: externalKey.key }))
        : [{ kid: externalKey.kid, key: externalKey.key }];
    source = "the site's external key";
  } else {
    const forCid = Object.hasOwn(configured, cid) ? configured[cid] : undefined;
    if (forCid === undefined) {
      throw new EmulatorError(
        'NO_KEY_FOR_CID',
        `No key for cid "${cid}": the site sent no external key (external_key.mpeg_cenc or PACKINFO) and the emulator config has no "keys" entry for this cid.`,
        { cid },
      );
    }
    available = forCid;
    source = `the configured keys of cid "${cid}"`;
  }
  const missing = requestedKids.filter((kid) => !available.some((k) => k.kid === kid));
  if (missing.length > 0) {
    throw new EmulatorError(
      'KID_NOT_LICENSED',
      `The license request asks for key ID${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which ${source} do${source.startsWith('the site') ? 'es' : ''} not include: the content was packaged with another key than the one for cid "${cid}".`,
      { cid, missingKids: missing, availableKids: available.map((k) => k.kid) },
    );
  }
  return requestedKids.map((kid) => available.find((k) => k.kid === kid) as ContentKey);
}
