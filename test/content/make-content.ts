/**
 * `pnpm content`: renders, encrypts and packages the sample content (see README.md here).
 * Exit code 0 on success, 1 with a one-sentence reason otherwise (never a stack trace).
 */
import { ContentError } from './content-error.ts';
import { USAGE, parseContentOptions } from './content-options.ts';
import { makeContent } from './content-pipeline.ts';

const log = (line: string) => console.log(`content: ${line}`);

try {
  const options = parseContentOptions(process.argv.slice(2), process.env);
  if (options.help) {
    console.log(USAGE);
  } else {
    await makeContent(options, log);
    log('done');
  }
} catch (error) {
  const reason = error instanceof ContentError ? `${error.message} [${error.code}]` : String(error);
  console.error(`make-content: ${reason}`);
  process.exitCode = 1;
}
