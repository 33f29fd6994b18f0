import type { FaultPlan } from '@multidrm/emulator';
import type {
  ContentEntry,
  DemoApi,
  DemoError,
  PlayPlan,
  PlayRequest,
  RealServiceInput,
  Result,
  Setup,
} from '../../shared/contract.ts';
import { MODES } from '../../shared/contract.ts';
import { PLAYER_MANIFESTS, USERS } from './catalogue.ts';
import { buildPolicy } from './policy.ts';
import { realServiceProblem, type RealServiceStore } from './real-service.ts';
import { SITE_PATHS, type SiteSession } from './site.ts';

export interface DemoApiContext {
  shell: 'electron' | 'web';
  appUrl: string;
  emulatorUrl: string;
  /** The content server: each player's manifest is a file of it (PLAYER_MANIFESTS). */
  contentUrl: string;
  contents: readonly ContentEntry[];
  contentKey: { kid: string; key: string };
  siteIds: { json: string; xml: string };
  header: string;
  session: SiteSession;
  realService: RealServiceStore;
  /** The emulator's faults: the page's faults menu sets them for each play. */
  faults: FaultPlan;
}

const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const fail = (error: DemoError): Result<never> => ({ ok: false, error });

/**
 * The calls behind the contract, on arguments already parsed by the transport (IPC or HTTP). The
 * answers hold URLs and names only; secrets stay in the context.
 */
export function createDemoApi(ctx: DemoApiContext): DemoApi {
  return {
    async getSetup(): Promise<Result<Setup>> {
      return ok({
        modes: MODES,
        users: USERS,
        contents: ctx.contents,
        eventsUrl: `${ctx.emulatorUrl}/events`,
        emulatorUrl: ctx.emulatorUrl,
        realService: ctx.realService.view(),
        shell: ctx.shell,
      });
    },

    async preparePlay(request: PlayRequest): Promise<Result<PlayPlan>> {
      if (!ctx.contents.some((c) => c.cid === request.cid)) {
        return fail({
          code: 'UNKNOWN_CONTENT',
          message: `No title with cid "${request.cid}" in the catalogue.`,
          fix: 'Pick a title from the list.',
        });
      }
      const built = buildPolicy(request.policy, request.mode, ctx.contentKey);
      if (!built.ok) return fail(built.error);

      const real = ctx.realService.get();
      if (real.enabled) {
        const problem = realServiceProblem(real);
        if (problem !== undefined) {
          return fail({
            code: 'REAL_SERVICE_INCOMPLETE',
            message: `The real-service settings are incomplete: ${problem}.`,
            fix: 'Complete them under "Real service", or turn the real service off to use the local emulator.',
          });
        }
        if (request.mode !== 'token') {
          return fail({
            code: 'REAL_SERVICE_TOKEN_ONLY',
            message:
              request.mode === 'proxy'
                ? "The demo's license proxy forwards to the local emulator only."
                : "A license cloud cannot call a gateway on this machine's loopback address.",
            fix: 'Use token mode with the real service, or turn the real service off.',
          });
        }
        if (request.fault !== undefined) {
          return fail({
            code: 'FAULTS_ARE_THE_EMULATORS',
            message:
              'Faults are injected by the local emulator; the real service answers for itself.',
            fix: 'Set the fault to "none", or turn the real service off.',
          });
        }
      }
      if (request.streams !== undefined && request.mode !== 'token' && request.mode !== 'proxy') {
        return fail({
          code: 'SCREENS_NEED_A_TOKEN',
          message:
            'A stream limit travels in the v2 token (max_stream_per_user): the gateway answers cannot carry it.',
          fix: 'Use token or license proxy mode for the screens.',
        });
      }
      // Each play starts with the fault the menu shows, and only that one.
      ctx.faults.set(request.fault === undefined ? [] : [request.fault]);

      ctx.session.userId = request.userId;
      ctx.session.policy = built.policy;
      ctx.session.streams = request.streams;
      const gatewayXml = request.mode === 'gateway-xml';
      const manifest = PLAYER_MANIFESTS[request.player];
      const plan: PlayPlan = {
        mode: request.mode,
        player: request.player,
        cid: request.cid,
        siteId: real.enabled ? real.siteId : gatewayXml ? ctx.siteIds.xml : ctx.siteIds.json,
        manifestUrl: `${ctx.contentUrl}/${manifest.file}`,
        manifestType: manifest.type,
        keySystem: 'org.w3.clearkey',
        licenseUrl: real.enabled ? real.licenseUrl : `${ctx.emulatorUrl}/ri/licenseManager.do`,
        header: real.enabled ? real.header : ctx.header,
        target: real.enabled ? 'real service' : 'emulator',
      };
      if (request.mode === 'token') plan.tokenUrl = `${ctx.appUrl}${SITE_PATHS.token}`;
      else if (request.mode === 'proxy') {
        // The player gets no token source and no license server: only the site's proxy.
        plan.licenseProxyUrl = `${ctx.appUrl}${SITE_PATHS.licenseProxy}`;
      } else {
        const path = gatewayXml ? SITE_PATHS.customDataXml : SITE_PATHS.customDataJson;
        plan.customDataUrl = `${ctx.appUrl}${path}`;
      }
      return ok(plan);
    },

    async setRealService(settings: RealServiceInput) {
      ctx.realService.update(settings);
      return ok(ctx.realService.view());
    },
  };
}
