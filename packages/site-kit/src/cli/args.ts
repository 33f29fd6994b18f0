import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type CliIo } from './io.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs with its errors turned into usage errors that name the command's help. */
export function parse<T extends Options>(
  argv: string[],
  options: T,
  command: string,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (error) {
    const reason = (error as Error).message.replace(/\. To specify.*$/s, '');
    throw new UsageError(`${reason} (see: multidrm ${command} --help)`);
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
  if (value === undefined || value === '') {
    throw new UsageError(`--${flag} is required${envName ? ` (or set ${envName})` : ''}`);
  }
  return value;
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
