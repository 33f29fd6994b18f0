import { builtinEnvironments, type Environment } from 'vitest/runtime';
import { VirtualConsole, VirtualConsolePrinter } from 'happy-dom';

/**
 * vitest's happy-dom, with the page's console kept in the page as a browser's DevTools keeps it.
 * happy-dom mirrors every failed request to the page console ("POST … 503 (Service Unavailable)",
 * "socket hang up") and vitest hands it the worker's own stderr, so the tests that provoke refusals on
 * purpose filled a green run with error text. `page-console.ts` prints it with a test that fails.
 */
const happyDom = builtinEnvironments['happy-dom'];

export const PAGE_CONSOLE = Symbol.for('multidrm.page-console');

const environment: Environment = {
  ...happyDom,
  name: 'happy-dom-page-console',
  async setup(global: typeof globalThis, options) {
    const printer = new VirtualConsolePrinter();
    const workerConsole = global.console;
    // vitest's setup gives the page `global.console`: lend it the page's own for that moment.
    global.console = new VirtualConsole(printer) as unknown as Console;
    try {
      const result = await happyDom.setup(global, options);
      Object.assign(global, { [PAGE_CONSOLE]: printer });
      return result;
    } finally {
      global.console = workerConsole;
    }
  },
};

export default environment;
