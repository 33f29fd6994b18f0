import { SiteKitError } from '../errors.ts';

/**
 * What is wrong with the first member a gateway answer breaks, for a license service that answers
 * each with its own code (the service's table: a playback period invalid, badly formatted, or not
 * starting before its end; HDCP, CGMS-A, APS invalid).
 * - `format`: the text is not the member's format (a time that is not yyyy-mm-ddThh:mm:ssZ);
 * - `value`: the format is right, the value is not (2026-02-30, HDCP 7, a missing member);
 * - `order`: the playback period does not start before it ends.
 */
export type AnswerProblem = 'format' | 'value' | 'order';

/** INVALID_GATEWAY_RESPONSE for an answer that decrypted and broke the spec, naming the member. */
export class GatewayResponseError extends SiteKitError {
  override name = 'GatewayResponseError';
  /** The member path as the answer names it, attributes without a prefix: `PD_END`, `PC.CGMS-A`. */
  readonly member: string | undefined;
  readonly problem: AnswerProblem;

  constructor(message: string, member: string | undefined, problem: AnswerProblem) {
    super('INVALID_GATEWAY_RESPONSE', message);
    this.member = member;
    this.problem = problem;
  }
}

/** The member path of a zod issue path, with the XML parser's "@_" attribute prefix dropped. */
export function memberPath(path: readonly PropertyKey[]): string | undefined {
  if (path.length === 0) return undefined;
  return path.map((p) => String(p).replace(/^@_/, '')).join('.');
}
