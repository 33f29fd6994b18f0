import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, type EmulatorConfig, type EmulatorConfigInput } from './config.ts';
import type { FlowEvents } from './events.ts';
import type { FaultPlan } from './faults/fault-plan.ts';
import { createEmulatorHandler, LICENSE_PATHS, type EmulatorHandlerOptions } from './handler.ts';
import { failureAnswer, serviceCodes } from './dialect.ts';
import { EmulatorError } from './errors.ts';
import { hostCheck } from './http/host-check.ts';
import { toNodeListener } from './http/node-adapter.ts';

/** Options of {@link startEmulator}: the handler's options plus where to listen. */
export interface StartOptions extends EmulatorHandlerOptions {
  /** Default 127.0.0.1: the emulator holds site keys and is meant for this machine only. */
  host?: string;
  /** Default 0: an ephemeral port, read it from `url`. */
  port?: number;
  /**
   * How long a request may take to arrive, head and body (default 30 000 ms; Node's own is 300 s):
   * a client that trickles its body in is answered 408 and its connection closed.
   */
  requestTimeoutMs?: number;
}

/** A started emulator; `close()` it when done (tests: in `afterAll`). */
export interface RunningEmulator {
  /** Base URL, e.g. http://127.0.0.1:41234; the license URL is `${url}/ri/licenseManager.do`. */
  url: string;
  /** `${url}/ri/licenseManager.do`: where players send license requests, as to the service. */
  licenseUrl: string;
  /** Flow events of every license request: `events.on(fn)` or `for await (const e of events)`. */
  events: FlowEvents;
  /** The validated config, defaults applied. */
  config: EmulatorConfig;
  /** The faults injected on purpose (see the README's Faults): `set`, `add`, `clear`, `list`. */
  faults: FaultPlan;
  /** Ends event streams and open connections, then stops listening. */
  close(): Promise<void>;
}

/**
 * Starts the emulator on node:http (default 127.0.0.1, an ephemeral port); rejects with a {@link
 * ConfigError} for an invalid config or the listen error.
 */
export async function startEmulator(
  config: EmulatorConfigInput | EmulatorConfig,
  options: StartOptions = {},
): Promise<RunningEmulator> {
  const { host = '127.0.0.1', port = 0, requestTimeoutMs = 30_000, ...handlerOptions } = options;
  const handler = createEmulatorHandler(config, handlerOptions);
  const listener = toNodeListener(handler, handlerOptions.onInternalError);
  // Set once the port is known; nothing is served before.
  let hostAllowed: (host: string | undefined) => boolean = () => false;
  const server = createServer(serverTimeouts(requestTimeoutMs), (req, res) => {
    if (hostAllowed(req.headers.host)) return listener(req, res);
    const answer = failureAnswer(
      hostRefusal(req.headers.host ?? ''),
      handler.config.dialect,
      serviceCodes({}),
      {
        connection: 'close',
      },
    );
    const body = answer.body as string;
    res.writeHead(answer.status, {
      ...answer.headers,
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  hostAllowed = hostCheck(handler.config.allowedHosts, shownHost, address.port);
  let closing: Promise<void> | undefined;
  const url = `http://${shownHost}:${address.port}`;
  return {
    url,
    licenseUrl: `${url}${LICENSE_PATHS[0]}`,
    events: handler.events,
    config: handler.config,
    faults: handler.faults,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        handler.events.close();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
        // Event streams have just been ended; anything still open after a moment is cut.
        setTimeout(() => server.closeAllConnections(), 200).unref();
      });
      return closing;
    },
  };
}

function hostRefusal(host: string): EmulatorError {
  return new EmulatorError(
    'HOST_NOT_ALLOWED',
    `Host ${JSON.stringify(host.slice(0, 100))} is not a name the emulator answers to: call it as http://localhost:<port> or http://127.0.0.1:<port>, or add the host to allowedHosts in the emulator config.`,
    { host: host.slice(0, 100) },
  );
}

/** Node's request timeouts for `requestTimeoutMs`, checked often enough to apply near it. */
function serverTimeouts(requestTimeoutMs: number) {
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs <= 0) {
    const issue = 'requestTimeoutMs: must be a whole number of milliseconds above 0';
    throw new ConfigError(`Invalid start options: ${issue}.`, [issue]);
  }
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(10_000, requestTimeoutMs),
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(requestTimeoutMs / 4)),
  };
}
