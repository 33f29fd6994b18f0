import { SiteKitError } from '../errors.ts';
import { crypt } from './crypt.ts';
import { HELP } from './help.ts';
import { UsageError, type CliIo } from './io.ts';
import { tokenConvert } from './token-convert.ts';
import { tokenCreate } from './token-create.ts';
import { tokenInspect } from './token-inspect.ts';

/** Runs one CLI invocation and returns its exit code: 0 ok, 1 invalid input or token, 2 usage. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const [first, second] = argv;
  const command =
    first === 'token' && second !== undefined && !second.startsWith('-')
      ? `token ${second}`
      : first;
  const rest = argv.slice(command?.includes(' ') ? 2 : 1);
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.stdout(HELP.main as string);
      return command === undefined ? 2 : 0;
    }
    if (!(command in HELP) || command === 'main') {
      throw new UsageError(
        `unknown command "${argv.slice(0, 2).join(' ')}" (see: multidrm --help)`,
      );
    }
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout(HELP[command] as string);
      return 0;
    }
    switch (command) {
      case 'token create':
        await tokenCreate(rest, io);
        return 0;
      case 'token inspect':
        return await tokenInspect(rest, io);
      case 'token convert':
        await tokenConvert(rest, io);
        return 0;
      default:
        await crypt(command as 'encrypt' | 'decrypt', rest, io);
        return 0;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`error USAGE: ${error.message}\n`);
      return 2;
    }
    if (error instanceof SiteKitError) {
      io.stderr(`error ${error.code}: ${error.message}\n`);
      return 1;
    }
    // Anything else is a bug in this program: say so plainly, without a stack trace.
    io.stderr(`error INTERNAL: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  }
}
