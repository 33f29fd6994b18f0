import type { FlowEvent } from '@multidrm/emulator';
import type { LicenseAuthEvents } from '@multidrm/player';
import type { ProxyLogEntry } from '../shared/proxy-events.ts';

export type Lane = 'player' | 'site' | 'license service';

/** One row of the timeline; `key` is stable for tests (`data-step`). */
export interface Step {
  key: string;
  lane: Lane;
  what: string;
  detail?: string;
  status: 'ok' | 'fail' | 'info';
  /** Wall-clock ms since the epoch. */
  at: number;
  /** The screens control: the screen whose player made the step. */
  screen?: number;
}

const TOKEN_SOURCES = {
  cache: 'prefetched token',
  network: 'token fetched for it',
  shared: 'token shared with another request',
  proxy: 'no token in the browser: the site adds it',
} as const;

const ms = (value: number) => `${Math.round(value)} ms`;

/** A step for each event of the license service emulator (its SSE stream). */
export function emulatorStep(event: FlowEvent): Step {
  const at = Date.parse(event.at);
  const base = { at, lane: 'license service' as const };
  switch (event.type) {
    case 'license-request':
      return {
        ...base,
        key: 'license-request-received',
        what: 'License service received the license request',
        detail: `key IDs ${event.kids.join(', ') || 'none'}`,
        status: 'info',
      };
    case 'token-checked':
      return {
        ...base,
        key: 'token-checked',
        what: event.ok
          ? `Token verified${event.version ? ` (v${event.version})` : ''}`
          : 'Token rejected',
        detail: event.ok
          ? `site ${event.siteId}, user ${event.userId}, cid ${event.cid}${event.warnings ? ` · ${event.warnings.join('; ')}` : ''}`
          : `service code ${event.errorCode} · ours: ${event.reason}`,
        status: event.ok ? 'ok' : 'fail',
      };
    case 'callback-sent':
      return {
        ...base,
        key: 'callback-sent',
        what: `License service → site gateway (${event.format.toUpperCase()})`,
        detail: `asks about user ${event.userId}, cid ${event.cid}`,
        status: 'info',
      };
    case 'callback-answered':
      return {
        ...base,
        lane: 'site',
        key: 'callback-answered',
        what: event.ok ? 'Site gateway answered: allowed' : 'Site gateway answered: refused',
        detail: `${ms(event.durationMs)}${event.siteErrorCode ? ` · site code ${event.siteErrorCode}` : ''}${event.errorCode ? ` · ${event.errorCode}` : ''}`,
        status: event.ok ? 'ok' : 'fail',
      };
    case 'license-issued':
      return {
        ...base,
        key: 'license-issued',
        what: event.stream.renewal
          ? `License issued: a renewal of stream ${shortId(event.stream.id)}`
          : `License issued (${event.licenseType})`,
        detail: [describePolicy(event.policy), describeStream(event.stream)]
          .filter((part) => part !== '')
          .join(' · '),
        status: 'ok',
      };
    case 'fault-injected':
      return {
        ...base,
        key: 'fault-injected',
        what: `Emulator injected the fault ${event.fault} (the faults menu)`,
        detail: Object.entries(event.parameters)
          .map(([name, value]) => `${name} ${String(value)}`)
          .join(' · '),
        status: 'info',
      };
    case 'license-denied':
      return {
        ...base,
        key: 'license-denied',
        what: `License denied: service code ${event.errorCode}`,
        // The service's answer beside the emulator's explanation of it.
        detail: `ours: ${event.reason} · ${event.detail}`,
        status: 'fail',
      };
  }
}

/** The stream as the service counts it (the screens): its name, and the user's count of streams. */
function describeStream(stream: { id: string; activeStreams: number; countsForSeconds: number }) {
  if (stream.id === '') return '';
  return `stream ${shortId(stream.id)}: ${stream.activeStreams} of the user's streams, counted ${stream.countsForSeconds} s without a renewal`;
}

/** The first characters of a stream ID (the player's is a UUID): enough to tell screens apart. */
const shortId = (id: string) => (id.length > 8 ? `${id.slice(0, 8)}…` : id);

function describePolicy(policy: unknown): string {
  if (typeof policy !== 'object' || policy === null) return '';
  const p = policy as Record<string, unknown>;
  // v1 tokens and gateway answers say limit; a v2 token has none (a duration or date limits it).
  const parts = p['limit'] === undefined ? [] : [`limit ${p['limit'] ? 'on' : 'off'}`];
  const duration = p['duration'] ?? p['license_duration'];
  if (duration !== undefined) parts.push(`duration ${String(duration)} s`);
  if (p['expire_date'] !== undefined) parts.push(`until ${String(p['expire_date'])}`);
  if (p['persistent']) parts.push('persistent');
  const { hdcp, level } = securityOf(p['security_policy']);
  if (hdcp !== undefined) parts.push(`HDCP ${hdcp}`);
  if (level !== undefined) parts.push(`level ${level}`);
  if (p['max_stream_per_user'] !== undefined)
    parts.push(`max_stream_per_user ${String(p['max_stream_per_user'])}`);
  if (p['renewal_duration'] !== undefined)
    parts.push(`renewal every ${String(p['renewal_duration'])} s`);
  return parts.join(' · ');
}

/** HDCP and PlayReady level from a v1 security policy (one object) or a v2 one (per-track array). */
function securityOf(security: unknown): { hdcp?: number; level?: number } {
  type V1 = { output_protect?: { control_hdcp?: number }; playready_security_level?: number };
  type V2 = { ncg?: { control_hdcp?: number }; playready?: { security_level?: number } }[];
  if (Array.isArray(security)) {
    const entry = (security as V2)[0];
    return { hdcp: entry?.ncg?.control_hdcp, level: entry?.playready?.security_level };
  }
  const v1 = security as V1 | undefined;
  return { hdcp: v1?.output_protect?.control_hdcp, level: v1?.playready_security_level };
}

type PlayerEvent =
  | { name: 'tokenRequested'; event: LicenseAuthEvents['tokenRequested'] }
  | { name: 'tokenReceived'; event: LicenseAuthEvents['tokenReceived'] }
  | { name: 'tokenFailed'; event: LicenseAuthEvents['tokenFailed'] }
  | { name: 'licenseRequestSent'; event: LicenseAuthEvents['licenseRequestSent'] }
  | { name: 'licenseAnswered'; event: LicenseAuthEvents['licenseAnswered'] };

/** A step for each event of the player module, stamped when it happened. */
export function playerStep(input: PlayerEvent, at: number): Step {
  switch (input.name) {
    case 'tokenRequested':
      return {
        key: 'token-requested',
        lane: 'player',
        at,
        what: `Player → site: asks for the ${input.event.kind}`,
        detail: `cid ${input.event.cid}, drm_type ${input.event.drmType}`,
        status: 'info',
      };
    case 'tokenReceived':
      return {
        key: 'token-received',
        lane: 'site',
        at,
        what: `Site → player: ${input.event.kind} issued`,
        detail: ms(input.event.durationMs),
        status: 'ok',
      };
    case 'tokenFailed':
      return {
        key: 'token-failed',
        lane: 'site',
        at,
        what: `Site refused the ${input.event.kind}`,
        detail: input.event.error.code,
        status: 'fail',
      };
    case 'licenseRequestSent':
      if (input.event.licenseRequestType === 'license-renewal') {
        return {
          key: 'license-renewal-sent',
          lane: 'player',
          at,
          what: 'Player → license service: license renewal',
          detail: `${input.event.keySystem} as ${input.event.drmType} · ${TOKEN_SOURCES[input.event.tokenSource]}`,
          status: 'info',
        };
      }
      return {
        key: 'license-request-sent',
        lane: 'player',
        at,
        what:
          input.event.tokenSource === 'proxy'
            ? "Player → site's license proxy: license request"
            : 'Player → license service: license request',
        detail: `${input.event.keySystem} as ${input.event.drmType} · ${TOKEN_SOURCES[input.event.tokenSource]}`,
        status: 'info',
      };
    case 'licenseAnswered':
      return {
        key: 'license-answered',
        lane: 'player',
        at,
        what: input.event.error ? 'Player got a refusal' : 'Player got the license',
        detail: `HTTP ${input.event.status ?? '—'} · ${ms(input.event.durationMs)}`,
        status: input.event.error ? 'fail' : 'ok',
      };
  }
}

/**
 * A step for each event of the site's license proxy (proxy mode): the hop the other modes do not
 * have, between the player and the license service. The site decides there and makes the token.
 */
export function proxyStep({ at, event }: ProxyLogEntry): Step {
  const base = { at, lane: 'site' as const };
  switch (event.type) {
    case 'request':
      return {
        ...base,
        key: 'proxy-request',
        what:
          event.kind === 'license'
            ? "Site's license proxy received the license request"
            : `Site's license proxy received a ${event.kind} request`,
        detail: `drmType ${event.drmType}${event.cid === undefined ? '' : `, cid ${event.cid}`}`,
        status: 'info',
      };
    case 'decision':
      return {
        ...base,
        key: 'proxy-decision',
        what: event.allow
          ? 'Site allowed it from its session: the proxy made a token, sent on to the license service'
          : `Site refused it from its session (HTTP ${event.status})`,
        detail: `${event.userId === undefined ? '' : `user ${event.userId}, `}cid ${event.cid}${event.allow ? ' · the token never reaches the browser' : ''}`,
        status: event.allow ? 'ok' : 'fail',
      };
    case 'upstream':
      return {
        ...base,
        key: 'proxy-upstream',
        what: `License service → site's proxy: HTTP ${event.status}, relayed to the player`,
        detail: `${ms(event.ms)}${event.errorCode === undefined ? '' : ` · service code ${event.errorCode}`}`,
        status: event.errorCode !== undefined || event.status >= 400 ? 'fail' : 'ok',
      };
    case 'rejected':
    case 'error':
      return {
        ...base,
        key: `proxy-${event.type}`,
        what: `Site's proxy answered ${event.code} (HTTP ${event.status})`,
        detail: event.reason,
        status: 'fail',
      };
  }
}
