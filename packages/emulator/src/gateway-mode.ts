import { SUCCESS_CODE, type GatewayAnswer, type GatewayRequest } from '@multidrm/site-kit';
import type { Authorization, Grant } from './authorization.ts';
import type { EmulatorConfig, SiteConfig } from './config.ts';
import {
  customDataKey,
  openCustomData,
  readEnvelope,
  type CustomDataInner,
} from './custom-data.ts';
import type { ClientCodeOf } from './dialect.ts';
import { EmulatorError } from './errors.ts';
import type { FlowRecorder } from './events.ts';
import { callGateway } from './gateway-callback.ts';
import { postVia } from './http/callback-post.ts';
import { faultRefusal, type FaultPlan } from './faults/fault-plan.ts';
import { mpegCencV1 } from './token-grant.ts';
import { base64ToBytes, bytesToHex } from './web/bytes.ts';
import { randomHex, type AesKey } from './web/crypto.ts';

export interface GatewayAuthorizer {
  authorize(json: Record<string, unknown>, flow: FlowRecorder): Promise<Authorization>;
}

export interface GatewayOptions {
  /**
   * The fetch used for callbacks. Default: on Node, outside a DOM environment, node:http with
   * keep-alive connections (what load tests of a gateway need) as long as the global fetch is the
   * one the runtime started with; else the global fetch, looked up at each callback (so that a
   * fetch patched later, as msw/node does, is the one used). A fetch replaced before the emulator
   * was loaded is only used when passed here.
   */
  fetch?: typeof fetch;
}

interface GatewayContext extends GatewayOptions {
  /** For the events: the code as the client gets it. */
  codeOf: ClientCodeOf;
  /** The faults injected on purpose: a gateway fault stands in for the callback. */
  faults: FaultPlan;
}

/**
 * Gateway mode, as the spec's workflow: read the custom data, call the site's gateway with an
 * encrypted request and a fresh nonce, then decrypt and check its answer.
 */
export function createGatewayAuthorizer(
  config: EmulatorConfig,
  options: GatewayContext,
): GatewayAuthorizer {
  const sites = new Map(
    config.sites.map((site) => [site.siteId, { site, key: customDataKey(site.siteKey) }]),
  );
  const post = postVia(options.fetch);

  return {
    async authorize(json, flow) {
      const envelope = readEnvelope(json);
      const known = sites.get(envelope.site_id);
      if (known === undefined) {
        throw new EmulatorError(
          'UNKNOWN_SITE',
          `The custom data is for site "${envelope.site_id}", which is not in the emulator config: add it to "sites" with its site key, access key and gatewayUrl.`,
          { siteId: envelope.site_id, configuredSites: [...sites.keys()] },
          { field: 'custom_data.site_id' },
        );
      }
      const { site } = known;
      const data = await open(envelope.data, site, await known.key);
      const fault = options.faults.strike('custom-data', flow);
      if (fault !== undefined) throw faultRefusal(fault, { siteId: site.siteId, cid: data.cid });
      if (site.gatewayUrl === undefined) {
        throw new EmulatorError(
          'GATEWAY_NOT_CONFIGURED',
          `Site "${site.siteId}" has no gatewayUrl in the emulator config, so gateway-mode custom data cannot be served: set its gatewayUrl, or have the player send a license token.`,
          { siteId: site.siteId },
        );
      }
      const request: GatewayRequest = {
        format: site.gatewayFormat,
        user_id: data.user_id,
        cid: data.cid,
        nonce: randomHex(16),
        drm_type: envelope.drm_type,
      };
      if (data.oid !== undefined) request.oid = data.oid;
      const answer = await callGateway(site, site.gatewayUrl, request, flow, {
        post,
        timeoutMs: config.gatewayTimeoutMs,
        codeOf: options.codeOf,
      });
      return toAuthorization(site, { ...data, drm_type: envelope.drm_type }, answer);
    },
  };
}

/**
 * One failure branch for every way the encrypted part can fail, with one sentence, on every channel:
 * the answer, the events and the log say the same for all of them (see openCustomData).
 */
async function open(data: string, site: SiteConfig, key: AesKey): Promise<CustomDataInner> {
  const opened = await openCustomData(data, key);
  if (opened.ok) return opened.value;
  throw new EmulatorError(
    'DECRYPT_FAILED',
    `The custom data of site "${site.siteId}" does not open with its site key: it was not made by this site with the site key in the emulator config, or it was changed on the way.`,
    { siteId: site.siteId },
    { field: 'custom_data.data' },
  );
}

function toAuthorization(
  site: SiteConfig,
  data: CustomDataInner & { drm_type: Authorization['drmType'] },
  answer: GatewayAnswer,
): Authorization {
  const code = answer.format === 'json' ? answer.error_code : answer.ERROR;
  if (code !== SUCCESS_CODE) {
    const message = answer.format === 'json' ? answer.error_message : answer.ERRMSG;
    throw new EmulatorError(
      'GATEWAY_DENIED',
      `The site "${site.siteId}" refused the license with its error code ${code}${message ? `: ${message}` : ''}.`,
      { siteId: site.siteId, siteErrorCode: code, siteErrorMessage: message },
      // The service nests the site's own code and text as JSON text in its message.
      { serviceMessage: JSON.stringify({ ERROR: code, MESSAGE: message ?? '' }) },
    );
  }
  const base = {
    mode: 'gateway' as const,
    siteId: site.siteId,
    cid: data.cid,
    drmType: data.drm_type,
    warnings: [],
    responseFormat: 'original' as const,
  };
  if (answer.format === 'json') {
    const grant: Grant = { source: 'gateway-json', playback: { ...answer.playback_policy } };
    if (answer.security_policy !== undefined) grant.security = answer.security_policy;
    const keys = mpegCencV1(answer.external_key);
    if (keys !== undefined) grant.externalKeys = keys;
    return { ...base, userId: answer.response_user_id ?? data.user_id, grant };
  }
  const playback: Grant['playback'] = { limit: answer.LIMIT === 'Y' };
  if (answer.PD_START !== undefined) playback.start_date = answer.PD_START;
  if (answer.PD_END !== undefined) playback.expire_date = answer.PD_END;
  const grant: Grant = { source: 'gateway-xml', playback };
  if (answer.PC !== undefined) grant.outputControl = answer.PC;
  if (answer.PACKINFO !== undefined) {
    const hex = (b64: string) => bytesToHex(base64ToBytes(b64));
    grant.externalKeys = [{ kid: hex(answer.PACKINFO.KEYID), key: hex(answer.PACKINFO.KEY) }];
  }
  return { ...base, userId: data.user_id, grant };
}
