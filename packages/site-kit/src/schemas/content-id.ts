// The content ID a player asks for, wherever site-kit reads one from a player (the token and
// custom-data endpoints' JSON body, the license proxy's query): one rule, because the cid goes into
// the token JSON, into the service's request and into logs.

/** The most characters of a cid a player sends. */
export const MAX_CID = 200;

/** C0 controls and DEL (CR, LF, NUL, ...): a cid goes into the token JSON and into logs. */
export const CID_CONTROL = /[\u0000-\u001f\u007f]/;

/** Whether a cid a player sent may be used. */
export function isPlayerCid(cid: string): boolean {
  return cid.length > 0 && cid.length <= MAX_CID && !CID_CONTROL.test(cid);
}
