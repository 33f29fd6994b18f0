import { spawnSync } from 'node:child_process';
import { ContentError } from './content-error.ts';
import type { ContentErrorCode } from './content-error.ts';

export interface Tool {
  readonly name: string;
  readonly path: string;
  /** Strings cut out of any output the tool's failure is reported with (the content key). */
  readonly secrets: readonly string[];
}

const FFMPEG_HELP =
  'Install it with `apt-get update && apt-get install -y ffmpeg` (Debian/Ubuntu; `brew install ffmpeg` ' +
  'on macOS), or point --ffmpeg / MULTIDRM_FFMPEG at an ffmpeg binary.';

/** Checks that ffmpeg runs; names the install command when it does not. */
export function requireFfmpeg(path: string): string {
  const version = probe(
    path,
    ['-version'],
    'FFMPEG_MISSING',
    (why) => `ffmpeg ${why} (looked for "${path}"). ${FFMPEG_HELP}`,
  );
  return version.split('\n')[0] ?? 'ffmpeg';
}

/** Checks that the shaka-packager binary runs (the npm wrapper would hide a failure). */
export function requirePackager(path: string): string {
  const version = probe(
    path,
    ['--version'],
    'PACKAGER_MISSING',
    (why) =>
      `shaka-packager ${why} (looked for "${path}"). Run \`pnpm install\` so the npm package ` +
      'shaka-packager is in test/node_modules, or pass --packager PATH.',
  );
  return version.trim();
}

/** Runs a tool to completion; a non-zero exit becomes a TOOL_FAILED error with its last output. */
export function runTool(tool: Tool, args: readonly string[], cwd: string, step: string): void {
  const result = spawnSync(tool.path, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.error !== undefined) {
    throw new ContentError(
      'TOOL_FAILED',
      `${tool.name} could not start while ${step}: ${result.error.message}`,
    );
  }
  if (result.status !== 0) {
    const how =
      result.status === null
        ? `was killed by ${result.signal}`
        : `exited with code ${result.status}`;
    throw new ContentError(
      'TOOL_FAILED',
      `${tool.name} ${how} while ${step}:\n${redact(tail(result.stderr + result.stdout), tool.secrets)}`,
    );
  }
}

function probe(
  path: string,
  args: readonly string[],
  code: ContentErrorCode,
  message: (why: string) => string,
): string {
  const result = spawnSync(path, args, { encoding: 'utf8' });
  const errno = (result.error as NodeJS.ErrnoException | undefined)?.code;
  if (errno === 'ENOENT') throw new ContentError(code, message('was not found'));
  if (result.error !== undefined)
    throw new ContentError(code, message(`cannot run (${errno ?? result.error.message})`));
  if (result.status !== 0)
    throw new ContentError(code, message(`failed to report its version (exit ${result.status})`));
  return result.stdout;
}

function tail(output: string, lines = 8): string {
  return output.trim().split('\n').slice(-lines).join('\n');
}

function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => out.replaceAll(secret, '<redacted>'), text);
}
