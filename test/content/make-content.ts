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
    log(
      {
        committed: 'keeping the committed kid and key (--new-key for a random pair)',
        given: 'using the kid and key given (one not given stays the committed one)',
        new: 'a new random kid and key: the keys in the emulator README and configs no longer match this content',
      }[options.keySource],
    );
    await makeContent(options, log);
    log('done');
  }
} catch (error) {
  const reason = error instanceof ContentError ? `${error.message} [${error.code}]` : String(error);
  console.error(`make-content: ${reason}`);
  process.exitCode = 1;
}
