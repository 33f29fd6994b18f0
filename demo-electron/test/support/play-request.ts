import type { PlayRequest } from '../../src/shared/contract.ts';

/**
 * The Play the stack tests send unless they vary part of it: member-alice's token play of the free
 * sample in Shaka, under a policy with no limit (no expiry, HDCP, security level or external key).
 * A fresh object each call, so a test that changes its copy changes no other test's.
 */
export const playRequest = (over: Partial<PlayRequest> = {}): PlayRequest => ({
  mode: 'token',
  player: 'shaka',
  userId: 'member-alice',
  cid: 'free-sample',
  policy: {
    limit: false,
    timeRule: 'none',
    persistent: false,
    hdcp: null,
    securityLevel: null,
    externalKey: false,
  },
  ...over,
});
