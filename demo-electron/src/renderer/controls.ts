import type {
  Mode,
  PlayerName,
  PlayRequest,
  PolicyInput,
  RealServiceInput,
  TimeRule,
} from '../shared/contract.ts';
import { FAULT_MENU } from '../shared/faults.ts';

const byId = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`The page has no #${id}.`);
  return element as T;
};

const checked = (id: string) => byId<HTMLInputElement>(id).checked;
const value = (id: string) => byId<HTMLInputElement | HTMLSelectElement>(id).value;

function optionalNumber<T extends number>(text: string): T | null {
  return text === '' ? null : (Number(text) as T);
}

/** The page's controls as the contract's play request. */
export function readPlayRequest(): PlayRequest {
  const timeRule = value('time-rule') as TimeRule;
  const policy: PolicyInput = {
    limit: checked('limit'),
    timeRule,
    persistent: checked('persistent'),
    hdcp: optionalNumber<0 | 1 | 2>(value('hdcp')),
    securityLevel: optionalNumber<150 | 2000>(value('security-level')),
    externalKey: checked('external-key'),
  };
  if (timeRule === 'duration') policy.durationSeconds = Number(value('duration'));
  if (timeRule === 'expire_date') policy.expireDate = value('expire').trim();
  const request: PlayRequest = {
    mode: value('mode') as Mode,
    player: value('player') as PlayerName,
    userId: value('user').trim(),
    cid: value('content'),
    policy,
  };
  const fault = FAULT_MENU[value('fault') as keyof typeof FAULT_MENU];
  if (fault !== undefined) request.fault = fault.fault;
  return request;
}

export function readRealService(): RealServiceInput {
  const input: RealServiceInput = {
    enabled: checked('real-enabled'),
    licenseUrl: value('real-url').trim(),
    siteId: value('real-site').trim(),
    header: value('real-header').trim(),
  };
  const siteKey = value('real-site-key');
  const accessKey = value('real-access-key');
  if (siteKey !== '') input.siteKey = siteKey;
  if (accessKey !== '') input.accessKey = accessKey;
  return input;
}

/** Shows only the input of the chosen time rule. */
export function syncTimeRule(): void {
  const rule = value('time-rule');
  byId('duration-field').hidden = rule !== 'duration';
  byId('expire-field').hidden = rule !== 'expire_date';
}

export { byId };
