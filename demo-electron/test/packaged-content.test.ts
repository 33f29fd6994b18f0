import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PLAYER_MANIFESTS } from '../src/main/stack/catalogue.ts';
import { PLAYERS } from '../src/shared/contract.ts';
import { CONTENT_DIR } from './support/stack.ts';

// The packaged app serves the sample content from its resources (electron-builder.yml's
// extraResources filter): every file a player's manifest leads to must be in it.

const read = (path: string) => readFile(join(CONTENT_DIR, path), 'utf8');

/** The filter's patterns: file names, or `dir/**` for everything under dir. */
async function packagedPatterns(): Promise<string[]> {
  const config = await readFile(new URL('../electron-builder.yml', import.meta.url), 'utf8');
  const filter = config.slice(config.indexOf('extraResources:')).split('filter:')[1] ?? '';
  return [...filter.matchAll(/^ {6}- (\S+)$/gm)].map((match) => match[1] as string);
}

const isPackaged = (patterns: string[], path: string) =>
  patterns.some((p) => (p.endsWith('/**') ? path.startsWith(p.slice(0, -2)) : path === p));

/** The files a manifest leads to (playlists, init and media segments), itself included. */
async function filesOf(manifest: string): Promise<string[]> {
  const text = await read(manifest);
  if (manifest.endsWith('.mpd')) {
    const templates = [...text.matchAll(/(?:initialization|media)="([^"]+)"/g)];
    return [manifest, ...templates.map((m) => (m[1] as string).replace('$Number$', '1'))];
  }
  const uris = [
    ...[...text.matchAll(/URI="([^"]+)"/g)].map((m) => m[1] as string),
    ...text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#')),
  ].filter((uri) => !uri.startsWith('data:'));
  const nested = await Promise.all(
    uris.filter((uri) => uri.endsWith('.m3u8')).map((uri) => filesOf(uri)),
  );
  return [...new Set([manifest, ...uris, ...nested.flat()])];
}

describe('the packaged app', () => {
  test.each(PLAYERS)("carries every file the %s player's manifest leads to", async (player) => {
    const patterns = await packagedPatterns();
    const files = await filesOf(PLAYER_MANIFESTS[player].file);
    // A manifest, and for HLS the media playlists, then segments of both tracks.
    expect(files.some((file) => file.startsWith('video/'))).toBe(true);
    expect(files.some((file) => file.startsWith('audio/'))).toBe(true);
    expect(files.filter((file) => !isPackaged(patterns, file))).toEqual([]);
  });

  test('carries the key file the stack starts from', async () => {
    expect(isPackaged(await packagedPatterns(), 'keys.json')).toBe(true);
  });
});
