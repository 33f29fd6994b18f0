import { ConfigError } from '../config.ts';
import { loadConfigFile } from '../config-file.ts';
import type { FlowEvent } from '../events.ts';
import { startEmulator, type RunningEmulator } from '../server.ts';
import { parseCliArgs, USAGE } from './args.ts';

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

const defaultIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/**
 * Starts the emulator as the CLI does. Resolves with the running emulator, or with the exit code
 * when it could not start (2 = usage, 1 = config or listen error), having said why on stderr.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo = defaultIo,
): Promise<RunningEmulator | number> {
  const args = parseCliArgs(argv);
  if (args.kind === 'help') {
    io.out(USAGE);
    return 0;
  }
  if (args.kind === 'error') {
    io.err(`multidrm-emulator: ${args.message}\n\n${USAGE}`);
    return 2;
  }
  let emulator: RunningEmulator;
  try {
    const config = await loadConfigFile(args.config);
    emulator = await startEmulator(config, {
      host: args.host,
      port: args.port,
      onInternalError: (error) => io.err(`multidrm-emulator: internal error: ${String(error)}`),
    });
  } catch (error) {
    io.err(`multidrm-emulator: ${describeStartError(error, args.host, args.port)}`);
    return 1;
  }
  io.out(`listening on ${emulator.url}`);
  if (!args.quiet) emulator.events.on((event) => io.out(formatEvent(event)));
  return emulator;
}

function describeStartError(error: unknown, host: string, port: number): string {
  if (error instanceof ConfigError) {
    return error.issues.length === 0
      ? error.message
      : `Invalid emulator config:\n${error.issues.map((line) => `  ${line}`).join('\n')}`;
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE')
    return `Port ${port} on ${host} is already in use: pick another --port, or 0 for any free one.`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return `Cannot listen on host ${host}: it is not an address of this machine.`;
  if (code === 'EACCES') return `Not allowed to listen on port ${port}: use a port above 1023.`;
  return `Cannot start: ${error instanceof Error ? error.message : String(error)}`;
}

/** One line per event: time, request, type, then the event's own fields. */
export function formatEvent(event: FlowEvent): string {
  const { at, requestId, type, elapsedMs, ...rest } = event;
  return `${at} ${requestId} +${elapsedMs}ms ${type} ${JSON.stringify(rest)}`;
}
