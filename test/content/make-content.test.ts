import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decryptSegment, readClearSamples } from '../support/cenc/index.ts';
import { DEFAULT_OUT_DIR, parseContentOptions, readCommittedKeys } from './content-options.ts';
import { ContentError } from './content-error.ts';
import { requireFfmpeg } from './content-tools.ts';
import { fixtureKeys } from './fixture.ts';

const SCRIPT = fileURLToPath(new URL('./make-content.ts', import.meta.url));
const KID = '00112233445566778899aabbccddeeff';
const KEY = 'a0a1a2a3a4a5a6a7a8a9aaabacadaeaf';

interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runScript(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], {
      env: { PATH: process.env['PATH'], ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let scratch: string;
/** Answers `-version` like ffmpeg and fails anything else: the steps before rendering run without one. */
let fakeFfmpeg: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'multidrm-make-content-test-'));
  fakeFfmpeg = join(scratch, 'fake-ffmpeg');
  await writeFile(
    fakeFfmpeg,
    '#!/bin/sh\n[ "$1" = "-version" ] && echo "ffmpeg version fake" && exit 0\necho "fake ffmpeg renders nothing" >&2\nexit 1\n',
  );
  await chmod(fakeFfmpeg, 0o755);
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function expectCleanFailure(result: RunResult, code: string): void {
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`[${code}]`);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr.trim().split('\n').length).toBeLessThanOrEqual(10);
}

describe('when ffmpeg is missing', () => {
  const installHint = 'apt-get update && apt-get install -y ffmpeg';

  test('an empty PATH makes the script say how to install ffmpeg, and write nothing', async () => {
    const out = join(scratch, 'no-ffmpeg-on-path');
    const emptyBin = await mkdtemp(join(scratch, 'bin-'));
    const result = await runScript(['--out', out], { PATH: emptyBin });
    expectCleanFailure(result, 'FFMPEG_MISSING');
    expect(result.stderr).toContain('ffmpeg was not found (looked for "ffmpeg")');
    expect(result.stderr).toContain(installHint);
    expect(existsSync(out)).toBe(false);
  });

  test('a --ffmpeg path that does not exist gets the same advice', async () => {
    const result = await runScript([
      '--ffmpeg',
      '/nonexistent/ffmpeg',
      '--out',
      join(scratch, 'x'),
    ]);
    expectCleanFailure(result, 'FFMPEG_MISSING');
    expect(result.stderr).toContain('"/nonexistent/ffmpeg"');
    expect(result.stderr).toContain(installHint);
  });

  test('MULTIDRM_FFMPEG is honoured the same way', async () => {
    const result = await runScript(['--out', join(scratch, 'x')], {
      MULTIDRM_FFMPEG: '/nowhere/ffmpeg',
    });
    expectCleanFailure(result, 'FFMPEG_MISSING');
    expect(result.stderr).toContain('"/nowhere/ffmpeg"');
  });
});

describe('bad options', () => {
  test('a malformed --key is refused without echoing it', async () => {
    const secretish = 'not-a-key-0123456789';
    const result = await runScript(['--key', secretish, '--out', join(scratch, 'x')]);
    expectCleanFailure(result, 'INVALID_OPTION');
    expect(result.stderr).toContain('--key must be 32 hex digits');
    expect(result.stderr).not.toContain(secretish);
  });

  test('an unknown option is named', async () => {
    const result = await runScript(['--bogus']);
    expectCleanFailure(result, 'INVALID_OPTION');
    expect(result.stderr).toContain('unknown option "--bogus"');
  });

  test('a missing packager binary says how to get it, whether or not this machine has ffmpeg', async () => {
    const result = await runScript([
      '--packager',
      '/nonexistent/packager',
      '--ffmpeg',
      fakeFfmpeg,
      '--out',
      join(scratch, 'x'),
    ]);
    expectCleanFailure(result, 'PACKAGER_MISSING');
    expect(result.stderr).toContain(
      'shaka-packager was not found (looked for "/nonexistent/packager")',
    );
    expect(result.stderr).toContain('pnpm install');
  });

  test('--new-key together with a given kid or key is refused', async () => {
    const result = await runScript(['--new-key', '--kid', KID, '--out', join(scratch, 'x')]);
    expectCleanFailure(result, 'INVALID_OPTION');
    expect(result.stderr).toContain('--new-key makes a random kid and key');
  });

  test('--help prints the usage and exits 0', async () => {
    const result = await runScript(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: pnpm content');
  });
});

describe('parseContentOptions', () => {
  test('options win over the environment; a dashed kid is accepted', () => {
    const options = parseContentOptions(
      ['--kid', '00112233-4455-6677-8899-AABBCCDDEEFF', '--out=o'],
      {
        MULTIDRM_CONTENT_KID: 'ff'.repeat(16),
        MULTIDRM_CONTENT_KEY: KEY.toUpperCase(),
      },
    );
    expect(options.kid).toBe(KID);
    expect(options.key).toBe(KEY);
    expect(options.outDir.endsWith('/o')).toBe(true);
  });

  test('without kid and key, the committed sample keeps its kid and key', () => {
    const options = parseContentOptions([], {});
    const { kid, key } = fixtureKeys();
    expect(options).toMatchObject({ kid, key, keySource: 'committed' });
    expect(options.outDir).toBe(DEFAULT_OUT_DIR.replace(/\/$/, ''));
  });

  test('one of the two given: the other stays the committed one', () => {
    const options = parseContentOptions(['--key', KEY], {});
    expect(options).toMatchObject({ kid: fixtureKeys().kid, key: KEY, keySource: 'given' });
  });

  test('--new-key asks for a fresh random kid and key', () => {
    const a = parseContentOptions(['--new-key'], {});
    const b = parseContentOptions(['--new-key'], {});
    expect(a.kid).toMatch(/^[0-9a-f]{32}$/);
    expect(a.key).toMatch(/^[0-9a-f]{32}$/);
    expect(a.key).not.toBe(b.key);
    expect(a.key).not.toBe(fixtureKeys().key);
    expect(a.keySource).toBe('new');
  });

  test('an unreadable committed keys.json says how to go on, and is read only when needed', () => {
    const missing = () => readCommittedKeys('/nonexistent/keys.json');
    expect(missing).toThrow(
      'cannot read the committed kid and key from /nonexistent/keys.json (ENOENT); pass --new-key, or --kid and --key',
    );
    expect(() => parseContentOptions([], {}, missing)).toThrow(ContentError);
    const given = parseContentOptions(['--kid', KID, '--key', KEY], {}, missing);
    expect(given).toMatchObject({ kid: KID, key: KEY, keySource: 'given' });
  });

  test('a value-taking option without a value is an INVALID_OPTION error', () => {
    expect(() => parseContentOptions(['--out'], {})).toThrow(ContentError);
  });
});

// Renders real content with ffmpeg and the packager (a few seconds); CI installs ffmpeg.
test('the script itself keeps the committed kid and key when given none, and says so', async () => {
  const result = await runScript(['--ffmpeg', fakeFfmpeg, '--out', join(scratch, 'kept')]);
  expect(result.stdout).toContain('content: keeping the committed kid and key (--new-key');
  expectCleanFailure(result, 'TOOL_FAILED'); // the fake ffmpeg renders nothing
  expect(existsSync(join(scratch, 'kept'))).toBe(false);
});

describe('a full run with a fixed kid and key', () => {
  const out = () => join(scratch, 'full');
  let result: RunResult;
  beforeAll(async () => {
    // Fails the run's tests in the first second, with the install command, on a machine without it.
    requireFfmpeg('ffmpeg');
    result = await runScript(['--out', out()], {
      MULTIDRM_CONTENT_KID: KID,
      MULTIDRM_CONTENT_KEY: KEY,
    });
  }, 60_000);

  test('exits 0, prints progress and never prints the key', () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('content: rendering');
    expect(result.stdout).toContain('content: self-check');
    expect(result.stdout).not.toContain(KEY);
  });

  test('writes keys.json with the given kid and key', async () => {
    const keys: unknown = JSON.parse(await readFile(join(out(), 'keys.json'), 'utf8'));
    expect(keys).toEqual({ cid: 'multidrm-sample', kid: KID, key: KEY, durationSeconds: 8 });
  });

  test('writes content that decrypts with that key to the clear samples', async () => {
    const read = (path: string) => readFile(join(out(), path));
    const decrypted = decryptSegment(
      await read('video/init.mp4'),
      await read('video/4.m4s'),
      Buffer.from(KEY, 'hex'),
    );
    const clear = readClearSamples(
      await read('clear/video/init.mp4'),
      await read('clear/video/4.m4s'),
    );
    expect(decrypted.kid).toBe(KID);
    expect(decrypted.samples.map((s) => Buffer.from(s).toString('base64'))).toEqual(
      clear.map((s) => Buffer.from(s).toString('base64')),
    );
  });

  test('writes the HLS playlists and the DASH-IF ClearKey manifest of the same segments', async () => {
    const text = (path: string) => readFile(join(out(), path), 'utf8');
    for (const kind of ['video', 'audio']) {
      const playlist = await text(`${kind}.m3u8`);
      expect(playlist).toContain(
        `KEYFORMAT="org.w3.clearkey",KEYFORMATVERSIONS="1",KEYID=0x${KID.toUpperCase()}`,
      );
      expect(playlist).toContain(`${kind}/4.m4s`);
    }
    expect(await text('master.m3u8')).toContain('video.m3u8');
    const mpd = await text('manifest-clearkey.mpd');
    expect(mpd).toContain('urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e');
    expect(mpd).not.toContain('cenc:pssh');
  });

  test('a failing packager is reported with its output, the key redacted, the old output kept', async () => {
    const fake = join(scratch, 'fake-packager');
    // Prints its arguments (which hold the key) and fails, like a packager rejecting its input.
    await writeFile(
      fake,
      '#!/bin/sh\n[ "$1" = "--version" ] && echo fake 1.0 && exit 0\necho "args: $*" >&2\nexit 3\n',
    );
    await chmod(fake, 0o755);
    const before = await readFile(join(out(), 'keys.json'), 'utf8');
    const failed = await runScript(['--out', out(), '--packager', fake], {
      MULTIDRM_CONTENT_KEY: KEY,
    });
    expectCleanFailure(failed, 'TOOL_FAILED');
    expect(failed.stderr).toContain('shaka-packager exited with code 3 while packaging');
    expect(failed.stderr).toContain('<redacted>');
    expect(failed.stderr).not.toContain(KEY);
    expect(await readFile(join(out(), 'keys.json'), 'utf8')).toBe(before);
  }, 60_000);
});
