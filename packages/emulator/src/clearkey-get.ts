import type { Authorization, ExternalContentKey } from './authorization.ts';
import type { ContentKey } from './config.ts';
import { EmulatorError } from './errors.ts';
import type { Call } from './http/exchange.ts';

/** What a ClearKey GET names: the site and the content, from its query. */
export interface ClearKeyAsk {
  siteId: string;
  cid: string;
}

/**
 * The ClearKey license as the service's proxy samples fetch it (wire addendum, section 7): `GET
 * /ri/clearkey/licenseManager.do?siteId=&cid=` with the token in the header, no body. Both query
 * members are required.
 */
export function readClearKeyAsk(call: Call): ClearKeyAsk {
  const query = new URLSearchParams(call.query);
  const [siteId, cid] = [query.get('siteId'), query.get('cid')];
  for (const [name, value] of [
    ['siteId', siteId],
    ['cid', cid],
  ] as const) {
    if (value === null || value === '') {
      throw new EmulatorError(
        'MISSING_PARAMETER',
        `A ClearKey GET needs the ${name} query parameter: GET ${call.path}?siteId=<your site ID>&cid=<content ID>, the token in the header.`,
        { parameter: name },
        { field: name },
      );
    }
  }
  return { siteId: siteId as string, cid: cid as string };
}

/** The query must name the token's own site and content: a token is for one cid only. */
export function checkClearKeyAsk(ask: ClearKeyAsk, auth: Authorization): void {
  if (ask.siteId !== auth.siteId) {
    throw new EmulatorError(
      'UNKNOWN_SITE',
      `The ClearKey GET names site "${ask.siteId.slice(0, 40)}", but the token is site "${auth.siteId}"'s: send the site ID the token was issued by.`,
      { siteId: ask.siteId.slice(0, 40) },
      { field: 'siteId' },
    );
  }
  if (ask.cid !== auth.cid) {
    throw new EmulatorError(
      'CID_MISMATCH',
      `The ClearKey GET asks for cid "${ask.cid.slice(0, 200)}", but the token is for cid "${auth.cid}": issue it for the content being played.`,
      { cid: auth.cid, requestedCid: ask.cid.slice(0, 200) },
      { field: 'cid' },
    );
  }
}

/**
 * A GET asks for no key IDs: it gets every key of the cid (the site's external keys that name
 * theirs, else the configured ones; none configured is selectKeys' NO_KEY_FOR_CID).
 */
export function kidsOfCid(
  cid: string,
  externalKeys: readonly ExternalContentKey[] | undefined,
  configured: Readonly<Record<string, readonly ContentKey[]>>,
): string[] {
  if (externalKeys !== undefined && externalKeys.length > 0) {
    return externalKeys.flatMap((k) => (k.kid === undefined ? [] : [k.kid]));
  }
  return (Object.hasOwn(configured, cid) ? configured[cid] : undefined)?.map((k) => k.kid) ?? [];
}
