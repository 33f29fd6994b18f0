import type { Dialect } from './config.ts';
import {
  ERROR_CODES,
  isRefusalReason,
  type EmulatorError,
  type EmulatorErrorCode,
  type RefusalReason,
  type ServiceRefusalBody,
} from './errors.ts';
import { answerJson, type Answer } from './http/exchange.ts';

export type ServiceCodeOf = (reason: RefusalReason) => string;

/** The code as the client gets it: the service code of a refusal in the service dialect, else the reason. */
export type ClientCodeOf = (code: EmulatorErrorCode) => string;

export function clientCodes(dialect: Dialect, codeOf: ServiceCodeOf): ClientCodeOf {
  return (code) => (dialect === 'service' && isRefusalReason(code) ? codeOf(code) : code);
}

/** The service code of each refusal reason, with the config's overrides. */
export function serviceCodes(overrides: Partial<Record<RefusalReason, string>>): ServiceCodeOf {
  return (reason) => overrides[reason] ?? ERROR_CODES[reason].serviceCode;
}

/** The service dialect's refusal: the service's errorCode and short message, then our explanation. */
export function serviceRefusal(
  error: EmulatorError & { code: RefusalReason },
  codeOf: ServiceCodeOf,
): ServiceRefusalBody {
  const entry = ERROR_CODES[error.code];
  return {
    errorCode: codeOf(error.code),
    message: error.serviceMessage ?? entry.message,
    reason: error.code,
    ...(error.field === undefined ? {} : { field: error.field }),
    fix: entry.fix,
    detail: error.message,
  };
}

/**
 * The answer to a failure. A license refusal in the service dialect is what the license service
 * sends: HTTP 200, a JSON body, no header that says it is a refusal. In the explain dialect, and for
 * transport failures (no such path, foreign origin, body too large, a bug) in both, it is the HTTP
 * status with {error_code, message, detail} and header x-drm-error-code.
 */
export function failureAnswer(
  error: EmulatorError,
  dialect: Dialect,
  codeOf: ServiceCodeOf,
  headers: Record<string, string>,
): Answer {
  const code = error.code;
  if (dialect === 'service' && isRefusalReason(code)) {
    return answerJson(
      serviceRefusal(error as EmulatorError & { code: RefusalReason }, codeOf),
      { ...headers, 'cache-control': 'no-store' },
      200,
    );
  }
  const extra: Record<string, string> = {
    ...headers,
    'x-drm-error-code': code,
    'cache-control': 'no-store',
  };
  if (code === 'METHOD_NOT_ALLOWED') extra['allow'] = String(error.detail?.['allow']);
  return answerJson(error.toBody(), extra, error.status);
}

/** The HTTP status a failure is answered with in a dialect. */
export function failureStatus(error: EmulatorError, dialect: Dialect): number {
  return dialect === 'service' && isRefusalReason(error.code) ? 200 : error.status;
}

/** The `license-denied` event: what the client got, and the whole explanation beside it. */
export function deniedEvent(error: EmulatorError, dialect: Dialect, codeOf: ServiceCodeOf) {
  const refusal =
    dialect === 'service' && isRefusalReason(error.code)
      ? serviceRefusal(error as EmulatorError & { code: RefusalReason }, codeOf)
      : undefined;
  const facts = { ...error.detail, ...error.eventFacts };
  return {
    type: 'license-denied' as const,
    status: failureStatus(error, dialect),
    errorCode: clientCodes(dialect, codeOf)(error.code),
    reason: error.code,
    message: refusal?.message ?? error.message,
    detail: error.message,
    ...(error.field === undefined ? {} : { field: error.field }),
    fix: ERROR_CODES[error.code].fix,
    ...(Object.keys(facts).length > 0 ? { facts } : {}),
  };
}
