import { parseArgs } from 'node:util';
import { nearest } from '@multidrm/site-kit/cli';

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

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  host: { type: 'string', default: '127.0.0.1' },
  port: { type: 'string', short: 'p', default: '0' },
  quiet: { type: 'boolean', short: 'q', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export function parseCliArgs(argv: readonly string[]): CliArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: OPTIONS,
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { kind: 'error', message: withSuggestion(error as NodeJS.ErrnoException) };
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

/** parseArgs' message, with the nearest option named when an option was mistyped. */
function withSuggestion(error: NodeJS.ErrnoException): string {
  const reason = error.message.replace(/\. To specify.*$/s, '');
  const typed = /'(-[^'=]*)/.exec(reason)?.[1];
  if (error.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || typed === undefined) return reason;
  const close = nearest(
    typed,
    Object.keys(OPTIONS).map((name) => `--${name}`),
  );
  return close === undefined ? reason : `${reason}; did you mean ${close}?`;
}
