/**
 * Every failure of the reader and the decryptor is a `CencError` with a stable `code`, so tests can
 * tell a damaged file from a file this small reader does not support.
 *
 * | code          | meaning                                                                    |
 * |---------------|----------------------------------------------------------------------------|
 * | TRUNCATED     | a box or a field runs past the end of the data                             |
 * | MISSING_BOX   | a box the format requires is absent (the message names the box path)      |
 * | NOT_ENCRYPTED | the init segment has no protected sample entry                             |
 * | UNSUPPORTED   | valid ISO-BMFF this reader does not handle (scheme, IV size, box version)  |
 * | INVALID_KEY   | the content key is not 16 bytes                                            |
 * | BAD_LAYOUT    | sizes and offsets contradict each other (sample outside mdat, subsamples)  |
 */
export type CencErrorCode =
  'TRUNCATED' | 'MISSING_BOX' | 'NOT_ENCRYPTED' | 'UNSUPPORTED' | 'INVALID_KEY' | 'BAD_LAYOUT';

export class CencError extends Error {
  override name = 'CencError';
  readonly code: CencErrorCode;

  constructor(code: CencErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
