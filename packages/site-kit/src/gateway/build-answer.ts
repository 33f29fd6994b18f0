import { bytesToBase64 } from '../encoding/base64.ts';
import { hexToBytes } from '../encoding/hex.ts';
import { formatTimestamp, parseTimestamp } from '../schemas/timestamp.ts';
import { SUCCESS_CODE, type GatewayAnswer, type XmlGatewayAnswer } from './answer.ts';
import { SECURITY_POLICY_DEFAULTS } from '../schemas/policy.ts';
import type { GatewayDecision } from './decision.ts';
import type { GatewayFormat } from './request.ts';

export type BuildResult = { ok: true; answer: GatewayAnswer } | { ok: false; reason: string };

/** The answer to a request, from a decision already checked by `gatewayDecisionSchema`. */
export function buildAnswer(
  decision: GatewayDecision,
  format: GatewayFormat,
  nonce: string,
  now: number,
): BuildResult {
  if (format === 'json') {
    if (!decision.allow) {
      const { error_code, error_message } = decision;
      return { ok: true, answer: { format, error_code, error_message, nonce } };
    }
    const { playback_policy, security_policy, external_key, response_user_id } = decision;
    const answer: GatewayAnswer = {
      format,
      error_code: SUCCESS_CODE,
      error_message: 'success',
      nonce,
      playback_policy,
    };
    if (response_user_id !== undefined) answer.response_user_id = response_user_id;
    if (security_policy !== undefined) answer.security_policy = security_policy;
    if (external_key !== undefined) answer.external_key = external_key;
    return { ok: true, answer };
  }
  if (!decision.allow) {
    if (decision.error_code.length !== 4) {
      return {
        ok: false,
        reason: `error_code "${decision.error_code}" is not 4 digits, which the XML (old specification) answer requires; answer XML requests (request.format === 'xml') with a 4-digit code.`,
      };
    }
    return {
      ok: true,
      answer: { format, ERROR: decision.error_code, ERRMSG: decision.error_message, NONCE: nonce },
    };
  }
  return buildXmlAnswer(decision, nonce, now);
}

type Allow = Extract<GatewayDecision, { allow: true }>;

function buildXmlAnswer(decision: Allow, nonce: string, now: number): BuildResult {
  const lost = unexpressibleInXml(decision);
  if (lost.length > 0) {
    return {
      ok: false,
      reason: `The decision sets ${lost.join(', ')}, which the XML (old specification) answer cannot carry; leave them out for XML requests (request.format === 'xml').`,
    };
  }
  const { playback_policy: playback, security_policy: security, external_key: keys } = decision;
  const xml = decision.xml ?? {};
  // `duration: 0` is no limit, as in a JSON answer (and the DRMs' license_duration): XML says that
  // with LIMIT N, and has no way to say a start without an end.
  const unlimited = playback.limit === true && playback.duration === 0;
  const answer: XmlGatewayAnswer = {
    format: 'xml',
    ERROR: SUCCESS_CODE,
    ERRMSG: 'success',
    LIMIT: playback.limit === true && !unlimited ? 'Y' : 'N',
    NONCE: nonce,
  };
  if (unlimited && xml.pd_start !== undefined) {
    return {
      ok: false,
      reason:
        'playback_policy.duration 0 means no limit, and the XML answer cannot carry xml.pd_start without an end (PD_END): give a duration above 0 or an expire_date, or leave xml.pd_start out.',
    };
  }
  if (playback.limit === true && !unlimited) {
    const startMs = xml.pd_start === undefined ? now : (parseTimestamp(xml.pd_start) as number);
    let endMs: number;
    if (playback.duration !== undefined) endMs = startMs + playback.duration * 1000;
    else if (playback.expire_date !== undefined)
      endMs = parseTimestamp(playback.expire_date) as number;
    else {
      return {
        ok: false,
        reason:
          'playback_policy.limit is true without duration or expire_date: the XML answer needs one of them for PD_END.',
      };
    }
    // The service refuses a period that does not start before it ends (8709), as the reader does.
    if (endMs <= startMs) {
      return {
        ok: false,
        reason: `The playback period does not start before it ends (PD_START ${formatTimestamp(startMs)}, PD_END ${formatTimestamp(endMs)}): grant a later expire_date, or duration 0 for no limit.`,
      };
    }
    answer.PD_START = formatTimestamp(startMs);
    answer.PD_END = formatTimestamp(endMs);
  } else if (xml.pd_start !== undefined) {
    return {
      ok: false,
      reason: 'xml.pd_start is applied only when playback_policy.limit is true.',
    };
  }
  const hdcp =
    security?.output_protect?.control_hdcp ?? SECURITY_POLICY_DEFAULTS.output_protect.control_hdcp;
  answer.PC = { HDCP: hdcp === 0 ? 0 : 1, 'CGMS-A': xml.cgms_a ?? -1, APS: xml.aps ?? 0 };
  const cenc = keys?.mpeg_cenc;
  if (cenc !== undefined) {
    if (cenc.key_id === undefined || cenc.key === undefined) {
      return {
        ok: false,
        reason:
          'external_key.mpeg_cenc needs both key_id and key in an XML answer (PACKINFO KEYID and KEY).',
      };
    }
    answer.PACKINFO = { KEYID: hexToBase64(cenc.key_id), KEY: hexToBase64(cenc.key) };
    if (cenc.iv !== undefined) answer.PACKINFO.IV = hexToBase64(cenc.iv);
  }
  return { ok: true, answer };
}

// Settings that would be dropped silently: refusing them keeps a site from believing, say, that
// hardware DRM is required when the XML answer cannot say so.
function unexpressibleInXml(decision: Allow): string[] {
  const lost: string[] = [];
  const { playback_policy: p, security_policy: s, external_key: k } = decision;
  if (decision.response_user_id !== undefined) lost.push('response_user_id');
  if (p.persistent === true) lost.push('playback_policy.persistent');
  if (s?.hardware_drm === true) lost.push('security_policy.hardware_drm');
  if (s?.allow_mobile_abnormal_device === true)
    lost.push('security_policy.allow_mobile_abnormal_device');
  if (s?.playready_security_level === 2000) lost.push('security_policy.playready_security_level');
  if (s?.output_protect?.allow_external_display === true)
    lost.push('security_policy.output_protect.allow_external_display');
  if (k?.hls_aes !== undefined) lost.push('external_key.hls_aes');
  if (k?.ncg !== undefined) lost.push('external_key.ncg');
  return lost;
}

function hexToBase64(hex: string): string {
  return bytesToBase64(hexToBytes(hex));
}
