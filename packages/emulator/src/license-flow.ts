import type { Authorization } from './authorization.ts';
import { checkClearKeyAsk, kidsOfCid, readClearKeyAsk } from './clearkey-get.ts';
import { buildClearKeyLicense } from './clearkey-license.ts';
import type { EmulatorConfig } from './config.ts';
import type { ClientCodeOf } from './dialect.ts';
import { EmulatorError } from './errors.ts';
import type { FlowEventOf, FlowRecorder } from './events.ts';
import { faultRefusal, type FaultPlan } from './faults/fault-plan.ts';
import { createGatewayAuthorizer, type GatewayOptions } from './gateway-mode.ts';
import { selectKeys } from './key-selection.ts';
import { deviceInfo, licenseAnswer, type IssuedLicense } from './license-answer.ts';
import type { Answer, Call } from './http/exchange.ts';
import { licenseDrmOf, readLicenseBody, type LicenseBody } from './license-body.ts';
import { MAX_LICENSE_REQUEST_BYTES } from './license-request.ts';
import { standInLicenseBytes } from './stand-in.ts';
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
): (call: Call, flow: FlowRecorder) => Promise<Answer> {
  const { now, codeOf, faults } = options;
  const header = config.customDataHeader;
  const tokens = createTokenAuthorizer(config);
  const gateways = createGatewayAuthorizer(config, options);
  const streams = new StreamRegistry({
    graceSeconds: config.streamGraceSeconds,
    defaultIntervalSeconds: config.renewalIntervalSeconds,
  });

  async function license(call: Call, flow: FlowRecorder): Promise<Answer> {
    refuseMode(call);
    // Only the ClearKey path routes a GET here: the site and cid in its query, no body.
    const clearKeyAsk = call.method === 'GET' ? readClearKeyAsk(call) : undefined;
    const bytes =
      clearKeyAsk === undefined ? await call.body(MAX_LICENSE_REQUEST_BYTES) : new Uint8Array(0);
    if (bytes === undefined) {
      throw new EmulatorError(
        'PAYLOAD_TOO_LARGE',
        `The license request body is larger than ${MAX_LICENSE_REQUEST_BYTES} bytes; a license request is a few hundred bytes to a few KiB.`,
      );
    }
    const body: LicenseBody =
      clearKeyAsk === undefined
        ? readLicenseBody(bytes, call.header('content-type'))
        : { shape: 'clearkey', request: { kids: [], type: 'temporary' } };
    // A PlayReady challenge may carry the token in its <CustomData>; header and query come first.
    const value =
      readLicenseValue(call, header) ?? (body.shape === 'playready' ? body.customData : undefined);
    // Thrown later, after the checks that come first; caught here without a closure per license.
    let streamId: string | undefined;
    let streamIdError: unknown;
    try {
      streamId = readStreamId(call);
    } catch (error) {
      streamIdError = error;
    }
    const origin = call.header('origin');
    // Members set only when present, in this order, without spreading a new object per member.
    const arrived: FlowEventOf<'license-request'> = {
      type: 'license-request',
      kids: body.shape === 'clearkey' ? body.request.kids : [],
    };
    if (origin !== null) arrived.origin = origin;
    if (streamId !== undefined) arrived.streamId = streamId;
    flow.emit(arrived);
    if (value === undefined) {
      if (body.shape === 'playready') {
        throw new EmulatorError(
          'PLAYREADY_NO_CUSTOM_DATA',
          `The PlayReady challenge carries no token: none in its <CustomData>, the ${header} header or the ${header} query parameter.`,
          { header },
          { field: header },
        );
      }
      throw new EmulatorError(
        'MISSING_CUSTOM_DATA',
        `The license request has no ${header} header and no ${header} query parameter: send the license token (token mode) or the site's custom data (gateway mode) in one of them.`,
        { header },
        { field: header },
      );
    }
    if (call.path === CLEARKEY_PATH && body.shape !== 'clearkey') {
      throw body.shape === 'json' ? body.error : licenseDrmOf({ shape: 'other', bytes }, '');
    }
    if (streamIdError !== undefined) throw streamIdError;

    const auth = await authorize(value, flow);
    if (clearKeyAsk !== undefined) checkClearKeyAsk(clearKeyAsk, auth);
    const drm = licenseDrmOf(body, auth.drmType);
    const policy = effectivePolicy(auth.grant);
    const nowMs = now();
    checkPolicyWindow(policy, nowMs);
    // The key IDs of a challenge are inside it, for the CDM's server: a stand-in checks the cid has keys.
    const requested =
      clearKeyAsk !== undefined
        ? kidsOfCid(auth.cid, auth.grant.externalKeys, config.keys)
        : body.shape === 'clearkey'
          ? body.request.kids
          : [];
    const keys = selectKeys(requested, auth.cid, auth.grant.externalKeys, config.keys);
    // The device is what the request says of itself: streams are counted per user and device.
    const told = deviceInfo(call.header('user-agent'), streamId ?? flow.requestId, drm);
    const device = told instanceof Promise ? await told : told;
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
    const issued: IssuedLicense =
      drm === 'ClearKey'
        ? { drm, clearKey: buildClearKeyLicense(keys, policy.persistent) }
        : {
            drm,
            bytes: standInLicenseBytes(drm, { cid: auth.cid, persistent: policy.persistent }),
          };
    flow.emit({
      type: 'license-issued',
      mode: auth.mode,
      siteId: auth.siteId,
      userId: auth.userId,
      cid: auth.cid,
      kids: keys.map((k) => k.kid),
      licenseType: policy.persistent ? 'persistent-license' : 'temporary',
      responseFormat: auth.responseFormat,
      policy,
      stream: {
        id: identity.streamId,
        renewal: stream.renewal,
        activeStreams: stream.activeStreams,
        countsForSeconds: stream.countsForSeconds,
      },
    });
    return licenseAnswer(
      issued,
      auth.responseFormat,
      policy,
      device,
      {
        'x-drm-license-policy': JSON.stringify(policy),
        'x-drm-license-drm': drm,
        'cache-control': 'no-store',
      },
      auth.drmType,
    );
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
      const auth = await tokens.authorize(value, classified, now());
      const checked: FlowEventOf<'token-checked'> = {
        type: 'token-checked',
        ok: true,
        siteId: auth.siteId,
        userId: auth.userId,
        cid: auth.cid,
        drmType: auth.drmType,
        version: auth.grant.source === 'token-v2' ? 2 : 1,
        responseFormat: auth.responseFormat,
      };
      if (auth.warnings.length > 0) checked.warnings = auth.warnings;
      flow.emit(checked);
      return auth;
    } catch (error) {
      const reason = error instanceof EmulatorError ? error.code : 'INTERNAL_ERROR';
      flow.emit({ type: 'token-checked', ok: false, errorCode: codeOf(reason), reason });
      throw error;
    }
  }

  return license;
}

/**
 * The service takes a `mode` query parameter for other requests than a license (NCG's
 * `mode=getserverinfo`, say); the emulator serves none of them: 9999, requested mode not supported.
 */
function refuseMode(call: Call): void {
  if (call.query === '') return;
  const mode = new URLSearchParams(call.query).get('mode');
  if (mode === null) return;
  throw new EmulatorError(
    'UNSUPPORTED_MODE',
    `The emulator serves license requests only, not mode=${JSON.stringify(mode.slice(0, 40))}: leave the mode parameter out.`,
    { mode: mode.slice(0, 40) },
    { field: 'mode' },
  );
}

const CLEARKEY_PATH = '/ri/clearkey/licenseManager.do';
