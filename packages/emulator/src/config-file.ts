import { readFile } from 'node:fs/promises';
import { ConfigError, parseConfig, type EmulatorConfig } from './config.ts';

// Node only: the msw kit, which runs in browser pages too, takes config objects, never files.

/** Reads and validates a config file; a missing file or bad JSON is a ConfigError with a sentence. */
export async function loadConfigFile(path: string): Promise<EmulatorConfig> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code;
    throw new ConfigError(`Cannot read the config file ${path}: ${why ?? 'unknown error'}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    // V8's JSON messages may quote a piece of the file, which may be a key: report only the place.
    const message = (error as Error).message;
    const where = /line \d+ column \d+/.exec(message) ?? /position \d+/.exec(message);
    throw new ConfigError(
      `The config file ${path} is not valid JSON${where ? ` (error at ${where[0]})` : ''}.`,
    );
  }
  return parseConfig(json);
}
