// Runs a web-standard handler as a Lambda handler: the HTTP event (payload format 2.0, used by
// Function URLs and HTTP APIs) becomes a Request, the Response becomes the result. It only converts.

export interface LambdaHttpEvent {
  rawPath: string;
  rawQueryString?: string;
  cookies?: string[];
  headers?: Record<string, string | undefined>;
  requestContext: { domainName?: string; http: { method: string } };
  body?: string;
  isBase64Encoded?: boolean;
}

export interface LambdaHttpResult {
  statusCode: number;
  headers: Record<string, string>;
  cookies?: string[];
  body: string;
  isBase64Encoded: boolean;
}

const TEXT = /^(text\/|application\/(json|xml|x-www-form-urlencoded))/;

export function toLambdaHandler(
  handler: (request: Request) => Promise<Response>,
): (event: LambdaHttpEvent) => Promise<LambdaHttpResult> {
  return async (event) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(event.headers ?? {})) {
      if (value !== undefined) headers.set(name, value);
    }
    // Payload 2.0 moves the cookies out of the headers.
    if (event.cookies !== undefined && event.cookies.length > 0)
      headers.set('cookie', event.cookies.join('; '));
    const host = event.requestContext.domainName ?? headers.get('host') ?? 'localhost';
    const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
    const method = event.requestContext.http.method;
    const hasBody = event.body !== undefined && method !== 'GET' && method !== 'HEAD';
    const body = hasBody
      ? event.isBase64Encoded
        ? Buffer.from(event.body!, 'base64')
        : event.body
      : undefined;
    const response = await handler(
      new Request(`https://${host}${event.rawPath}${query}`, { method, headers, body }),
    );

    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') out[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    const text = TEXT.test(response.headers.get('content-type') ?? 'text/plain');
    const bytes = Buffer.from(await response.arrayBuffer());
    return {
      statusCode: response.status,
      headers: out,
      ...(cookies.length > 0 ? { cookies } : {}),
      body: bytes.toString(text ? 'utf8' : 'base64'),
      isBase64Encoded: !text,
    };
  };
}
