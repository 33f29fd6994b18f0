/**
 * Failures of `pnpm content`, each with a stable code and a sentence that says what to do.
 *
 * | code             | meaning                                                        |
 * |------------------|----------------------------------------------------------------|
 * | INVALID_OPTION   | a command-line option or environment variable breaks its rule  |
 * | FFMPEG_MISSING   | no ffmpeg binary where the script looked                       |
 * | PACKAGER_MISSING | the shaka-packager binary is missing or cannot run             |
 * | TOOL_FAILED      | ffmpeg or the packager exited with an error                    |
 * | SELF_CHECK_FAILED| the packaged content does not decrypt to the clear samples     |
 * | NO_COMMITTED_KEYS| no kid and key given, and the committed keys.json is unreadable |
 */
export type ContentErrorCode =
  | 'INVALID_OPTION'
  | 'FFMPEG_MISSING'
  | 'PACKAGER_MISSING'
  | 'TOOL_FAILED'
  | 'SELF_CHECK_FAILED'
  | 'NO_COMMITTED_KEYS';

export class ContentError extends Error {
  override name = 'ContentError';
  readonly code: ContentErrorCode;

  constructor(code: ContentErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
