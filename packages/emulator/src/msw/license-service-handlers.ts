import { http, type HttpHandler } from 'msw';
import { parseConfig, type EmulatorConfig, type EmulatorConfigInput } from '../config.ts';
import type { FlowEvents } from '../events.ts';
import type { FaultPlan } from '../faults/fault-plan.ts';
import {
  createEmulatorHandler,
  LICENSE_PATHS,
  type EmulatorHandler,
  type EmulatorHandlerOptions,
} from '../handler.ts';

/** Where the kit's license service answers unless told otherwise (.test is never a real host). */
export const DEFAULT_LICENSE_BASE_URL = 'https://license-service.test';

/**
 * Options of {@link licenseServiceHandlers}: the emulator handler's options plus the origin to
 * answer for.
 */
export interface LicenseServiceOptions extends EmulatorHandlerOptions {
  /**
   * The origin the handlers answer for (no path: the service's paths are its own), the one your
   * player is configured with. Default https://license-service.test.
   */
  baseUrl?: string;
}

/** msw request handlers (spread them into setupServer or setupWorker) and the service behind them. */
export interface LicenseServiceHandlers extends Array<HttpHandler> {
  /** `${baseUrl}/ri/licenseManager.do`: where the player sends license requests. */
  readonly licenseUrl: string;
  readonly baseUrl: string;
  /** Every flow event, as the emulator's `/events` streams them. */
  readonly events: FlowEvents;
  /** Faults to inject: `set`, `add`, `clear`, `list` between (or during) tests. */
  readonly faults: FaultPlan;
  readonly config: EmulatorConfig;
  /** The emulator itself as a web-standard handler, the same one the HTTP server serves. */
  readonly handler: EmulatorHandler;
}

/**
 * The license service as msw handlers, for msw/node and msw/browser alike: every request under
 * `baseUrl` goes to the emulator's own handler, so the token checks, the gateway callback, the
 * service's dialect, the ClearKey licenses, the events and the faults are those of the emulator's
 * HTTP server, not a copy. The config is the CLI's (same schema, same ConfigError); only
 * `allowedOrigins` defaults to any origin here, as a test page's origin is the test runner's.
 */
export function licenseServiceHandlers(
  config: EmulatorConfigInput | EmulatorConfig,
  options: LicenseServiceOptions = {},
): LicenseServiceHandlers {
  const { baseUrl: base = DEFAULT_LICENSE_BASE_URL, ...handlerOptions } = options;
  const baseUrl = originOf(base, 'baseUrl');
  const checked = parseConfig(config);
  const withOrigins: EmulatorConfig =
    checked.allowedOrigins === undefined ? { ...checked, allowedOrigins: ['*'] } : checked;
  const handler = createEmulatorHandler(withOrigins, handlerOptions);
  const answer = http.all(`${baseUrl}/*`, ({ request }) => handler(request));
  return Object.assign([answer], {
    licenseUrl: `${baseUrl}${LICENSE_PATHS[0]}`,
    baseUrl,
    events: handler.events,
    faults: handler.faults,
    config: handler.config,
    handler,
  });
}

/** The origin of `url`; a path, query or a URL that does not parse is a sentence, not a guess. */
export function originOf(url: string, option: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(
      `${option} must be an absolute http(s) URL such as https://license.test, got "${url}".`,
    );
  }
  if (!/^https?:$/.test(parsed.protocol) || parsed.pathname !== '/' || parsed.search !== '') {
    throw new TypeError(
      `${option} must be an origin such as https://license.test (http or https, no path or query), got "${url}".`,
    );
  }
  return parsed.origin;
}
