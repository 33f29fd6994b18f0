import {
  BRIDGE_NAME,
  CALLS,
  type DemoApi,
  type DemoCall,
  type Result,
} from '../shared/contract.ts';

declare global {
  interface Window {
    [BRIDGE_NAME]?: DemoApi;
  }
}

/** The contract over HTTP, for the web mode: the same calls and answers as the Electron bridge. */
function httpApi(): DemoApi {
  const call =
    (name: DemoCall) =>
    async (...args: unknown[]): Promise<Result<never>> => {
      try {
        const response = await fetch(CALLS[name].path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(args),
        });
        return (await response.json()) as Result<never>;
      } catch {
        return {
          ok: false,
          error: {
            code: 'DEMO_UNREACHABLE',
            message: 'The demo stack does not answer.',
            fix: 'Start it again with pnpm demo:web and reload the page.',
          },
        };
      }
    };
  return {
    getSetup: call('getSetup'),
    preparePlay: call('preparePlay'),
    setRealService: call('setRealService'),
  } as DemoApi;
}

/** The preload's bridge in Electron, the HTTP API in a browser. */
export function demoApi(): DemoApi {
  return window[BRIDGE_NAME] ?? httpApi();
}
