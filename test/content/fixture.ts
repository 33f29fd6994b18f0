import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ContentKeys } from './content-pipeline.ts';

/** The committed sample content, as the tests read it. */
export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/content/', import.meta.url));

export function fixtureBytes(path: string): Uint8Array {
  return readFileSync(new URL(path, new URL('../fixtures/content/', import.meta.url)));
}

export function fixtureText(path: string): string {
  return Buffer.from(fixtureBytes(path)).toString('utf8');
}

export function fixtureKeys(): ContentKeys {
  return JSON.parse(fixtureText('keys.json')) as ContentKeys;
}
