import { CALLS, type DemoApi, type DemoCall, type Result } from '../../shared/contract.ts';
import { parseArguments } from '../contract-schemas.ts';

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };
const MAX_BODY = 16 * 1024;

const byPath = new Map(
  (Object.entries(CALLS) as [DemoCall, { path: string }][]).map(([call, { path }]) => [path, call]),
);

function answer(status: number, result: Result<unknown>): Response {
  return new Response(JSON.stringify(result), { status, headers: JSON_HEADERS });
}

function refusal(status: number, code: string, message: string, fix: string): Response {
  return answer(status, { ok: false, error: { code, message, fix } });
}

/**
 * The web mode's transport of the contract: `POST /api/<call>` with a JSON array of arguments. Only
 * the app's own page may call it (same Origin, JSON body), so other sites cannot drive the demo.
 */
export function createHttpApi(api: DemoApi, appOrigin: () => string) {
  return async (request: Request): Promise<Response | undefined> => {
    const call = byPath.get(new URL(request.url).pathname);
    if (call === undefined) return undefined;
    if (request.method !== 'POST') {
      return refusal(405, 'METHOD_NOT_ALLOWED', `${call} takes POST.`, 'Use POST.');
    }
    if (request.headers.get('origin') !== appOrigin()) {
      return refusal(
        403,
        'FORBIDDEN_ORIGIN',
        'Only the demo page may call its API.',
        'Open the demo at the URL the web script printed.',
      );
    }
    if (!request.headers.get('content-type')?.startsWith('application/json')) {
      return refusal(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'The body must be JSON.',
        'Send content-type: application/json.',
      );
    }
    const text = await readLimited(request, MAX_BODY);
    if (text === undefined) {
      return refusal(413, 'PAYLOAD_TOO_LARGE', `The body is over ${MAX_BODY} bytes.`, 'Send less.');
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refusal(
        400,
        'INVALID_REQUEST',
        'The body is not valid JSON.',
        'Send a JSON array of the arguments.',
      );
    }
    const parsed = parseArguments(call, body);
    if (!parsed.ok) return answer(400, parsed);
    const method = api[call] as (...args: unknown[]) => Promise<Result<unknown>>;
    return answer(200, await method(...(parsed.args as unknown[])));
  };
}

/** The body as text, or undefined once it passes `max` bytes: reading stops there, not at the end. */
async function readLimited(request: Request, max: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > max) return undefined;
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
