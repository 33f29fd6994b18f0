import type { Authorization } from './authorization.ts';
import { buildClearKeyLicense } from './clearkey-license.ts';
import type { EmulatorConfig } from './config.ts';
import type { ClientCodeOf } from './dialect.ts';
import { EmulatorError } from './errors.ts';
import type { FlowRecorder } from './events.ts';
import { faultRefusal, type FaultPlan } from './faults/fault-plan.ts';
import { createGatewayAuthorizer, type GatewayOptions } from './gateway-mode.ts';
import { readTextLimited } from './http/read-body.ts';
import { selectKeys } from './key-selection.ts';
import { deviceInfo, licenseAnswer } from './license-answer.ts';
import {
  MAX_LICENSE_REQUEST_BYTES,
  parseLicenseRequest,
  type ClearKeyRequest,
} from './license-request.ts';
import { classifyLicenseValue, readLicenseValue } from './license-value.ts';
import { checkPolicyWindow, effectivePolicy } from './policy.ts';
import { readStreamId } from './stream-id.ts';
import { StreamRegistry } from './streams.ts';
import { createTokenAuthorizer } from './token-mode.ts';

export interface LicenseFlowOptions extends GatewayOptions {
  now: () => number;
  /** For the events: the code as the client gets it. */
  codeOf: ClientCodeOf;
  /** The faults injected on purpose. */
  faults: FaultPlan;
}

/**
 * One license request, from its header (or query) and body to the license: authorize (token or
 * gateway), apply the policy against the clock, pick the keys, count the stream, answer in the
 * response format. Every refusal is thrown as an EmulatorError; the handler words it in its dialect.
 */
export function createLicenseFlow(
  config: EmulatorConfig,
  options: LicenseFlowOptions,
): (request: Request, flow: FlowRecorder) => Promise<Response> {
  const { now, codeOf, faults } = options;
  const header = config.customDataHeader;
  const tokens = createTokenAuthorizer(config);
  const gateways = createGatewayAuthorizer(config, options);
  const streams = new StreamRegistry({
    graceSeconds: config.streamGraceSeconds,
    defaultIntervalSeconds: config.renewalIntervalSeconds,
  });

  async function license(request: Request, flow: FlowRecorder): Promise<Response> {
    const value = readLicenseValue(request, header);
    const body = await readTextLimited(request.body, MAX_LICENSE_REQUEST_BYTES);
    if (body === undefined) {
      throw new EmulatorError(
        'PAYLOAD_TOO_LARGE',
        `The license request body is larger than ${MAX_LICENSE_REQUEST_BYTES} bytes; a ClearKey request is a few hundred.`,
      );
    }
    const parsed = attempt(() => parseLicenseRequest(body));
    const named = attempt(() => readStreamId(request));
    const origin = request.headers.get('origin');
    const streamId = named.value;
    flow.emit({
      type: 'license-request',
      kids: parsed.value?.kids ?? [],
      ...(origin === null ? {} : { origin }),
      ...(streamId === undefined ? {} : { streamId }),
    });
    if (value === undefined) {
      throw new EmulatorError(
        'MISSING_CUSTOM_DATA',
        `The license request has no ${header} header and no ${header} query parameter: send the license token (token mode) or the site's custom data (gateway mode) in one of them.`,
        { header },
        { field: header },
      );
    }
    if (parsed.error !== undefined) throw parsed.error;
    if (named.error !== undefined) throw named.error;
    const requested = (parsed.value as ClearKeyRequest).kids;

    const auth = await authorize(value, flow);
    const policy = effectivePolicy(auth.grant);
    const nowMs = now();
    checkPolicyWindow(policy, nowMs);
    const keys = selectKeys(requested, auth.cid, auth.grant.externalKeys, config.keys);
    // The device is what the request says of itself: streams are counted per user and device.
    const device = await deviceInfo(request.headers.get('user-agent'), streamId ?? flow.requestId);
    const identity = {
      siteId: auth.siteId,
      userId: auth.userId,
      deviceId: device.device_id,
      cid: auth.cid,
      streamId: streamId ?? '',
    };
    // check and commit run with no await between them: concurrent requests cannot both pass.
    const stream = streams.check(identity, policy, nowMs);
    const streamFault = faults.strike(stream.renewal ? 'renewal' : 'new-stream', flow);
    if (streamFault !== undefined) {
      throw faultRefusal(streamFault, { ...identity });
    }
    streams.commit(stream, policy, nowMs);
    const clearKey = buildClearKeyLicense(keys, policy.persistent);
    flow.emit({
      type: 'license-issued',
      mode: auth.mode,
      siteId: auth.siteId,
      userId: auth.userId,
      cid: auth.cid,
      kids: keys.map((k) => k.kid),
      licenseType: clearKey.type,
      responseFormat: auth.responseFormat,
      policy,
      stream: {
        id: identity.streamId,
        renewal: stream.renewal,
        activeStreams: stream.activeStreams,
        countsForSeconds: stream.countsForSeconds,
      },
    });
    return Response.json(licenseAnswer(clearKey, auth.responseFormat, policy, device), {
      headers: { 'x-drm-license-policy': JSON.stringify(policy), 'cache-control': 'no-store' },
    });
  }

  async function authorize(value: string, flow: FlowRecorder): Promise<Authorization> {
    const classified = classifyLicenseValue(value, header);
    const about = { siteId: classified.json['site_id'] };
    const refusal = faults.strike('authorize', flow);
    if (refusal !== undefined && classified.kind === 'gateway') throw faultRefusal(refusal, about);
    if (classified.kind === 'gateway') return gateways.authorize(classified.json, flow);
    try {
      if (refusal !== undefined) throw faultRefusal(refusal, about);
      const tokenFault = faults.strike('token', flow);
      if (tokenFault !== undefined) throw faultRefusal(tokenFault, about);
      const auth = await tokens.authorize(value, classified.json, now());
      flow.emit({
        type: 'token-checked',
        ok: true,
        siteId: auth.siteId,
        userId: auth.userId,
        cid: auth.cid,
        drmType: auth.drmType,
        version: auth.grant.source === 'token-v2' ? 2 : 1,
        responseFormat: auth.responseFormat,
        ...(auth.warnings.length > 0 ? { warnings: auth.warnings } : {}),
      });
      return auth;
    } catch (error) {
      const reason = error instanceof EmulatorError ? error.code : 'INTERNAL_ERROR';
      flow.emit({ type: 'token-checked', ok: false, errorCode: codeOf(reason), reason });
      throw error;
    }
  }

  return license;
}

function attempt<T>(run: () => T): { value?: T; error?: unknown } {
  try {
    return { value: run() };
  } catch (error) {
    return { error };
  }
}
