import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type CliIo } from './io.ts';
import { nearest } from './nearest.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util parseArgs with its errors turned into usage errors that name the command's help; an
 * unknown option gets the nearest known one suggested.
 */
export function parse<T extends Options>(
  argv: string[],
  options: T,
  command: string,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  const all: Options = { ...options, help: { type: 'boolean', short: 'h' } };
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: all,
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (error) {
    const reason = (error as Error).message.replace(/\. To specify.*$/s, '');
    const code = (error as NodeJS.ErrnoException).code;
    const typed = /'(-[^']*)'/.exec(reason)?.[1];
    const close =
      code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && typed !== undefined
        ? nearest(
            typed.replace(/=.*$/, ''),
            Object.keys(all).map((name) => `--${name}`),
          )
        : undefined;
    const hint = close === undefined ? '' : `; did you mean ${close}?`;
    throw new UsageError(`${reason}${hint} (see: multidrm ${command} --help)`);
  }
}

/** A flag's value, or the environment variable that may stand in for it. */
export function secret(
  values: Record<string, string | boolean | undefined>,
  flag: string,
  envName: string,
  io: CliIo,
): string | undefined {
  const value = values[flag];
  if (typeof value === 'string') return value;
  return io.env[envName] || undefined;
}

export function required(value: string | undefined, flag: string, envName?: string): string {
  return requireAll([[flag, value, envName]])[0] as string;
}

/** One required option: its flag, its value (if given) and the environment variable standing in. */
export type Requirement = readonly [flag: string, value: string | undefined, envName?: string];

/** The values of required options, in order; every missing one is named in one usage error. */
export function requireAll(requirements: readonly Requirement[]): string[] {
  const missing = requirements
    .filter(([, value]) => value === undefined || value === '')
    .map(([flag, , envName]) => ({ flag: `--${flag}`, or: envName ? ` (or set ${envName})` : '' }));
  if (missing.length === 1) {
    const [{ flag, or }] = missing as [(typeof missing)[number]];
    throw new UsageError(`${flag} is required${or}`);
  }
  if (missing.length > 1) {
    const names = missing.map(({ flag, or }) => `${flag}${or}`);
    throw new UsageError(`${names.slice(0, -1).join(', ')} and ${names.at(-1)} are required`);
  }
  return requirements.map(([, value]) => value as string);
}

export function seconds(value: string | boolean | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || value.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new UsageError(
      `--${flag} must be a non-negative number of seconds, got "${String(value)}"`,
    );
  }
  return n;
}
