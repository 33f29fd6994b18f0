import { randomBytes } from 'node:crypto';
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
  readonly help: boolean;
}

export type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_OUT_DIR = fileURLToPath(new URL('../fixtures/content/', import.meta.url));

export const USAGE = `Usage: pnpm content [options]

Renders a clear test clip with ffmpeg, encrypts it (raw-key CENC, 'cenc' scheme) and packages it
as DASH with shaka-packager, then writes keys.json and clear reference frames.

Options (each also settable through the environment variable in brackets):
  --out DIR         output directory (default test/fixtures/content)
  --kid HEX         key ID, 32 hex digits (MULTIDRM_CONTENT_KID; default random)
  --key HEX         content key, 32 hex digits (MULTIDRM_CONTENT_KEY; default random)
  --ffmpeg PATH     ffmpeg binary (MULTIDRM_FFMPEG; default "ffmpeg" on PATH)
  --packager PATH   shaka-packager binary (MULTIDRM_PACKAGER; default the npm package's binary)
  --help            print this text
`;

const VALUE_FLAGS = new Set(['--out', '--kid', '--key', '--ffmpeg', '--packager']);

export function parseContentOptions(argv: readonly string[], env: Env): ContentOptions {
  const values = new Map<string, string>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') {
      help = true;
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
  return {
    outDir: resolve(values.get('--out') ?? DEFAULT_OUT_DIR),
    kid: kidText === undefined ? randomHex() : hex16(kidText.replaceAll('-', ''), 'kid'),
    key: keyText === undefined ? randomHex() : hex16(keyText, 'key'),
    ffmpeg: values.get('--ffmpeg') ?? nonEmpty(env['MULTIDRM_FFMPEG']) ?? 'ffmpeg',
    packager: values.get('--packager') ?? nonEmpty(env['MULTIDRM_PACKAGER']) ?? defaultPackager(),
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

function hex16(text: string, name: 'kid' | 'key'): string {
  // The message states only the length: a mistyped key must not end up in a terminal log.
  if (!/^[0-9a-fA-F]{32}$/.test(text)) {
    throw new ContentError(
      'INVALID_OPTION',
      `--${name} must be 32 hex digits (16 bytes); got ${text.length} characters`,
    );
  }
  return text.toLowerCase();
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
