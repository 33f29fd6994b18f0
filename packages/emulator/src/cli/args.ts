import { parseArgs } from 'node:util';

export const USAGE = `Usage: multidrm-emulator --config FILE.json [--host 127.0.0.1] [--port N] [--quiet]

Serves POST /ri/licenseManager.do (also /license), GET /events (server-sent events) and GET /health.
  --config FILE   the emulator config (sites, keys, ...), see the README
  --host HOST     address to listen on; default 127.0.0.1
  --port N        port to listen on; default 0 (any free port, printed on the first line)
  --quiet         do not print the flow events
  --help          show this text`;

export type CliArgs =
  | { kind: 'help' }
  | { kind: 'run'; config: string; host: string; port: number; quiet: boolean }
  | { kind: 'error'; message: string };

export function parseCliArgs(argv: readonly string[]): CliArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string', short: 'c' },
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', short: 'p', default: '0' },
        quiet: { type: 'boolean', short: 'q', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { kind: 'error', message: (error as Error).message };
  }
  if (values.help) return { kind: 'help' };
  if (values.config === undefined || values.config === '') {
    return { kind: 'error', message: '--config FILE.json is required.' };
  }
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) {
    return {
      kind: 'error',
      message: `--port must be a whole number from 0 to 65535, got "${values.port}".`,
    };
  }
  if (values.host === '') return { kind: 'error', message: '--host must not be empty.' };
  return { kind: 'run', config: values.config, host: values.host, port, quiet: values.quiet };
}
