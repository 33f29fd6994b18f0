import { randomBytes } from 'node:crypto';
import {
  parseCustomData,
  readCustomDataEnvelope,
  SiteKitError,
  SUCCESS_CODE,
  type GatewayAnswer,
  type GatewayRequest,
  type ParsedCustomData,
} from '@multidrm/site-kit';
import type { Authorization, Grant } from './authorization.ts';
import type { EmulatorConfig, SiteConfig } from './config.ts';
import { EmulatorError } from './errors.ts';
import type { FlowRecorder } from './events.ts';
import { callGateway } from './gateway-callback.ts';

export interface GatewayAuthorizer {
  authorize(customData: string, flow: FlowRecorder): Promise<Authorization>;
}

export interface GatewayOptions {
  /** The fetch used for callbacks; default the global one. */
  fetch?: typeof fetch;
}

/**
 * Gateway mode, as the spec's workflow: read the custom data, call the site's gateway with an
 * encrypted request and a fresh nonce, then decrypt and check its answer.
 */
export function createGatewayAuthorizer(
  config: EmulatorConfig,
  options: GatewayOptions = {},
): GatewayAuthorizer {
  const sites = new Map(config.sites.map((site) => [site.siteId, site]));
  const doFetch = options.fetch ?? globalThis.fetch;

  return {
    async authorize(customData, flow) {
      const envelope = translate(() => readCustomDataEnvelope(customData));
      const site = sites.get(envelope.site_id);
      if (site === undefined) {
        throw new EmulatorError(
          'UNKNOWN_SITE',
          `The custom data is for site "${envelope.site_id}", which is not in the emulator config: add it to "sites" with its site key, access key and gatewayUrl.`,
          { siteId: envelope.site_id, configuredSites: [...sites.keys()] },
        );
      }
      if (site.gatewayUrl === undefined) {
        throw new EmulatorError(
          'GATEWAY_NOT_CONFIGURED',
          `Site "${site.siteId}" has no gatewayUrl in the emulator config, so gateway-mode custom data cannot be served: set its gatewayUrl, or have the player send a license token.`,
          { siteId: site.siteId },
        );
      }
      const data = translate(() => parseCustomData(customData, { siteKey: site.siteKey }));
      const request: GatewayRequest = {
        format: site.gatewayFormat,
        user_id: data.user_id,
        cid: data.cid,
        nonce: randomBytes(16).toString('hex'),
        drm_type: data.drm_type,
      };
      if (data.oid !== undefined) request.oid = data.oid;
      const answer = await callGateway(site, site.gatewayUrl, request, flow, {
        fetch: doFetch,
        timeoutMs: config.gatewayTimeoutMs,
      });
      return toAuthorization(site, data, answer);
    },
  };
}

function toAuthorization(
  site: SiteConfig,
  data: ParsedCustomData,
  answer: GatewayAnswer,
): Authorization {
  const code = answer.format === 'json' ? answer.error_code : answer.ERROR;
  if (code !== SUCCESS_CODE) {
    const message = answer.format === 'json' ? answer.error_message : answer.ERRMSG;
    throw new EmulatorError(
      'GATEWAY_DENIED',
      `The site "${site.siteId}" refused the license with its error code ${code}${message ? `: ${message}` : ''}.`,
      { siteId: site.siteId, siteErrorCode: code, siteErrorMessage: message },
    );
  }
  const base = {
    mode: 'gateway' as const,
    siteId: site.siteId,
    cid: data.cid,
    drmType: data.drm_type,
    warnings: [],
  };
  if (answer.format === 'json') {
    const grant: Grant = { playback: { ...answer.playback_policy } };
    if (answer.security_policy !== undefined) grant.security = answer.security_policy;
    const cenc = answer.external_key?.mpeg_cenc;
    if (cenc?.key !== undefined) {
      grant.externalKey =
        cenc.key_id === undefined
          ? { key: cenc.key.toLowerCase() }
          : { kid: cenc.key_id.toLowerCase(), key: cenc.key.toLowerCase() };
    }
    return { ...base, userId: answer.response_user_id ?? data.user_id, grant };
  }
  const playback: Grant['playback'] = { limit: answer.LIMIT === 'Y' };
  if (answer.PD_START !== undefined) playback.start_date = answer.PD_START;
  if (answer.PD_END !== undefined) playback.expire_date = answer.PD_END;
  const grant: Grant = { playback };
  if (answer.PC !== undefined) grant.outputControl = answer.PC;
  if (answer.PACKINFO !== undefined) {
    const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');
    grant.externalKey = { kid: hex(answer.PACKINFO.KEYID), key: hex(answer.PACKINFO.KEY) };
  }
  return { ...base, userId: data.user_id, grant };
}

function translate<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof SiteKitError) {
      const code =
        error.code === 'DECRYPT_FAILED' || error.code === 'INVALID_BASE64'
          ? 'DECRYPT_FAILED'
          : 'INVALID_CUSTOM_DATA';
      const hint =
        code === 'DECRYPT_FAILED'
          ? ' The custom data was not made with the site key configured for its site_id.'
          : '';
      throw new EmulatorError(code, `${error.message}${hint}`, undefined, { cause: error });
    }
    throw error;
  }
}
