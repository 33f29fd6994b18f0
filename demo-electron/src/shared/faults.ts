import type { FaultInput, FaultName } from '@multidrm/emulator';

/**
 * The page's faults menu: one entry per fault of the emulator's vocabulary (the same data a test
 * gives the msw kit or a config file gives the CLI), with the settings the demo uses. Keyed by the
 * fault's name, so that a fault added to the vocabulary must be added here too.
 */
export const FAULT_MENU: Readonly<Record<FaultName, { label: string; fault: FaultInput }>> = {
  'token-expired': {
    label: 'token expired, once (7011: the player fetches a fresh token)',
    fault: { fault: 'token-expired', times: 1 },
  },
  'wrong-hash': { label: 'wrong hash (7019)', fault: { fault: 'wrong-hash' } },
  'unknown-site': { label: 'unknown site (1003)', fault: { fault: 'unknown-site' } },
  'gateway-refusal': {
    label: "gateway refusal with the site's code 4031 (8002; gateway modes)",
    fault: { fault: 'gateway-refusal', siteCode: '4031', message: 'Refused by the demo' },
  },
  'gateway-timeout': {
    label: 'gateway timeout (8701; gateway modes)',
    fault: { fault: 'gateway-timeout' },
  },
  slow: { label: 'slow answer, 3 s', fault: { fault: 'slow', ms: 3000 } },
  'http-error': { label: 'HTTP 503 from the service', fault: { fault: 'http-error', status: 503 } },
  'stream-limit': { label: 'stream limit reached (6003)', fault: { fault: 'stream-limit' } },
  'renewal-refused': {
    label: 'renewals refused (8711)',
    fault: { fault: 'renewal-refused' },
  },
  refuse: {
    label: 'refused: key ID not a key of the content (6004)',
    fault: { fault: 'refuse', reason: 'KID_NOT_LICENSED' },
  },
};
