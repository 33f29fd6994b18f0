// AWS Lambda (Node.js 22 runtime) behind a Function URL or an API Gateway HTTP API (payload 2.0):
// handler = handler.handler. SITE_ID, SITE_KEY and ACCESS_KEY from the function's environment.
import { createSite, siteEnv } from '../site.ts';
import { toLambdaHandler } from './web-to-lambda.ts';

export const handler = toLambdaHandler(createSite(siteEnv(process.env)));
