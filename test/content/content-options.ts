import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContentError } from './content-error.ts';

export interface ContentOptions {
  readonly outDir: string;
  readonly kid: string;
  readonly key: string;
  readonly ffmpeg: string;
  readonly packager: string;
  /** Where kid and key came from: options or variables, the committed sample, or --new-key. */
  readonly keySource: 'given' | 'committed' | 'new';
  readonly help: boolean;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** A kid and key pair, 32 lowercase hex digits each. */
export interface ContentKeyPair {
  readonly kid: string;
  readonly key: string;
}

export const DEFAULT_OUT_DIR = fileURLToPath(new URL('../fixtures/content/', import.meta.url));

export const USAGE = `Usage: pnpm content [options]

Renders a clear test clip with ffmpeg, encrypts it (raw-key CENC, 'cenc' scheme) and packages it
as DASH and HLS (one set of fMP4 segments) with shaka-packager, then writes keys.json and clear
reference frames.

Options (each also settable through the environment variable in brackets):
  --out DIR         output directory (default test/fixtures/content)
  --kid HEX         key ID, 32 hex digits (MULTIDRM_CONTENT_KID; default the committed kid)
  --key HEX         content key, 32 hex digits (MULTIDRM_CONTENT_KEY; default the committed key)
  --new-key         a new random kid and key instead of the committed ones (the emulator's
                    README and config examples then no longer match the sample)
  --ffmpeg PATH     ffmpeg binary (MULTIDRM_FFMPEG; default "ffmpeg" on PATH)
  --packager PATH   shaka-packager binary (MULTIDRM_PACKAGER; default the npm package's binary)
  --help            print this text
`;

const VALUE_FLAGS = new Set(['--out', '--kid', '--key', '--ffmpeg', '--packager']);

/** The kid and key of the committed sample (test/fixtures/content/keys.json). */
export const COMMITTED_KEYS_FILE = fileURLToPath(
  new URL('../fixtures/content/keys.json', import.meta.url),
);

/**
 * Without --kid/--key (or their variables) the committed sample's pair is kept, so the keys that
 * the emulator README lists stay true; `--new-key` asks for a random pair.
 */
export function parseContentOptions(
  argv: readonly string[],
  env: Env,
  committedKeys: () => ContentKeyPair = readCommittedKeys,
): ContentOptions {
  const values = new Map<string, string>();
  let help = false;
  let newKey = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (arg === '--new-key') {
      newKey = true;
      continue;
    }
    const [flag = '', inline] = arg.startsWith('--') ? splitInline(arg) : [arg, undefined];
    if (!VALUE_FLAGS.has(flag)) {
      throw new ContentError('INVALID_OPTION', `unknown option "${flag}" (see --help)`);
    }
    const value = inline ?? argv[++i];
    if (value === undefined || value === '') {
      throw new ContentError('INVALID_OPTION', `option ${flag} needs a value`);
    }
    values.set(flag, value);
  }
  const kidText = values.get('--kid') ?? nonEmpty(env['MULTIDRM_CONTENT_KID']);
  const keyText = values.get('--key') ?? nonEmpty(env['MULTIDRM_CONTENT_KEY']);
  if (newKey && (kidText !== undefined || keyText !== undefined)) {
    throw new ContentError(
      'INVALID_OPTION',
      '--new-key makes a random kid and key: leave out --kid, --key, MULTIDRM_CONTENT_KID and MULTIDRM_CONTENT_KEY, or drop --new-key',
    );
  }
  // The committed pair is read only when one of the two is not given (and not for --help).
  const fallback =
    help || newKey || (kidText !== undefined && keyText !== undefined)
      ? undefined
      : committedKeys();
  return {
    outDir: resolve(values.get('--out') ?? DEFAULT_OUT_DIR),
    kid:
      kidText === undefined
        ? (fallback?.kid ?? randomHex())
        : hex16(kidText.replaceAll('-', ''), '--kid'),
    key: keyText === undefined ? (fallback?.key ?? randomHex()) : hex16(keyText, '--key'),
    ffmpeg: values.get('--ffmpeg') ?? nonEmpty(env['MULTIDRM_FFMPEG']) ?? 'ffmpeg',
    packager: values.get('--packager') ?? nonEmpty(env['MULTIDRM_PACKAGER']) ?? defaultPackager(),
    keySource: newKey
      ? 'new'
      : kidText === undefined && keyText === undefined
        ? 'committed'
        : 'given',
    help,
  };
}

function splitInline(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  return eq === -1 ? [arg, undefined] : [arg.slice(0, eq), arg.slice(eq + 1)];
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function hex16(
  text: string,
  name: string,
  code: 'INVALID_OPTION' | 'NO_COMMITTED_KEYS' = 'INVALID_OPTION',
): string {
  // The message states only the length: a mistyped key must not end up in a terminal log.
  if (!/^[0-9a-fA-F]{32}$/.test(text)) {
    throw new ContentError(
      code,
      `${name} must be 32 hex digits (16 bytes); got ${text.length} characters`,
    );
  }
  return text.toLowerCase();
}

export function readCommittedKeys(file: string = COMMITTED_KEYS_FILE): ContentKeyPair {
  let kid: unknown;
  let key: unknown;
  try {
    ({ kid, key } = JSON.parse(readFileSync(file, 'utf8')) as { kid?: unknown; key?: unknown });
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? 'not JSON';
    throw new ContentError(
      'NO_COMMITTED_KEYS',
      `cannot read the committed kid and key from ${file} (${why}); pass --new-key, or --kid and --key`,
    );
  }
  if (typeof kid !== 'string' || typeof key !== 'string') {
    throw new ContentError(
      'NO_COMMITTED_KEYS',
      `${file} has no "kid" and "key" strings; pass --new-key, or --kid and --key`,
    );
  }
  return {
    kid: hex16(kid, `"kid" in ${file}`, 'NO_COMMITTED_KEYS'),
    key: hex16(key, `"key" in ${file}`, 'NO_COMMITTED_KEYS'),
  };
}

function randomHex(): string {
  return randomBytes(16).toString('hex');
}

const PACKAGER_BINARIES: Readonly<Record<string, string>> = {
  'linux-x64': 'packager-linux-x64',
  'linux-arm64': 'packager-linux-arm64',
  'darwin-x64': 'packager-osx-x64',
  'darwin-arm64': 'packager-osx-arm64',
  'win32-x64': 'packager-win-x64.exe',
};

/** The binary inside the `shaka-packager` npm package; its JS wrapper always exits 0. */
function defaultPackager(): string {
  const platform = `${process.platform}-${process.arch}`;
  const binary = PACKAGER_BINARIES[platform];
  if (binary === undefined) {
    throw new ContentError(
      'PACKAGER_MISSING',
      `shaka-packager ships no binary for ${platform}; pass --packager PATH`,
    );
  }
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve('shaka-packager/package.json'));
  } catch {
    throw new ContentError(
      'PACKAGER_MISSING',
      'the npm package shaka-packager is not installed in test/; run `pnpm install`',
    );
  }
  return join(packageDir, 'bin', binary);
}
