import type { ExternalContentKey } from './authorization.ts';
import type { ContentKey } from './config.ts';
import { EmulatorError } from './errors.ts';

/**
 * Picks the content keys for the requested key IDs (all hex). External keys from the site
 * (external_key.mpeg_cenc, v2's array of them, or PACKINFO) win over the configured keys of the cid;
 * a v1 external key without key ID is taken to be the key of every requested key ID, as the site
 * vouches for it. Every requested key ID must be covered, or nothing is issued; a key ID that is
 * configured for another cid means the token names the wrong content (the service's 7012).
 */
export function selectKeys(
  requestedKids: readonly string[],
  cid: string,
  externalKeys: readonly ExternalContentKey[] | undefined,
  configured: Readonly<Record<string, readonly ContentKey[]>>,
): ContentKey[] {
  let available: readonly ContentKey[];
  const external = externalKeys !== undefined && externalKeys.length > 0;
  if (external) {
    available = externalKeys.flatMap((k) =>
      k.kid === undefined
        ? requestedKids.map((kid) => ({ kid, key: k.key }))
        : [{ kid: k.kid, key: k.key }],
    );
  } else {
    const forCid = Object.hasOwn(configured, cid) ? configured[cid] : undefined;
    if (forCid === undefined) {
      throw new EmulatorError(
        'NO_KEY_FOR_CID',
        `No key for cid "${cid}": the site sent no external key (external_key.mpeg_cenc or PACKINFO) and the emulator config has no "keys" entry for this cid.`,
        { cid },
        { field: 'cid' },
      );
    }
    available = forCid;
  }
  const missing = requestedKids.filter((kid) => !available.some((k) => k.kid === kid));
  if (missing.length > 0) {
    const owner = cidOf(missing, configured, cid);
    if (owner !== undefined) {
      throw new EmulatorError(
        'CID_MISMATCH',
        `The license request asks for key ID ${missing.join(', ')} of cid "${owner}", but the token (or custom data) is for cid "${cid}": issue it for the content being played.`,
        { cid, requestedCid: owner, missingKids: missing },
        { field: 'cid' },
      );
    }
    const plural = missing.length > 1 ? 's' : '';
    // Worded here only, for a refusal: every license passes through this function.
    const source = external ? "the site's external keys" : `the configured keys of cid "${cid}"`;
    throw new EmulatorError(
      'KID_NOT_LICENSED',
      `The license request asks for key ID${plural} ${missing.join(', ')}, which ${source} do not include: the content was packaged with another key than the one for cid "${cid}".`,
      { cid, missingKids: missing, availableKids: available.map((k) => k.kid) },
    );
  }
  return requestedKids.map((kid) => available.find((k) => k.kid === kid) as ContentKey);
}

function cidOf(
  kids: readonly string[],
  configured: Readonly<Record<string, readonly ContentKey[]>>,
  except: string,
): string | undefined {
  for (const [cid, keys] of Object.entries(configured)) {
    if (cid !== except && keys.some((k) => kids.includes(k.kid))) return cid;
  }
  return undefined;
}
