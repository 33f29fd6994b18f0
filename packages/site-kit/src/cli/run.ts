import { SiteKitError } from '../errors.ts';
import { crypt } from './crypt.ts';
import { explain } from './explain.ts';
import { HELP } from './help.ts';
import { UsageError, type CliIo } from './io.ts';
import { nearest } from './nearest.ts';
import { tokenConvert } from './token-convert.ts';
import { tokenCreate } from './token-create.ts';
import { tokenInspect } from './token-inspect.ts';

const TOP_LEVEL = ['token', 'encrypt', 'decrypt', 'explain'];
const TOKEN_COMMANDS = ['create', 'inspect', 'convert'];

/** Runs one CLI invocation and returns its exit code: 0 ok, 1 invalid input or token, 2 usage. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  // `multidrm help token create` is `multidrm token create --help`.
  if (argv[0] === 'help' && argv.length > 1) argv = [...argv.slice(1), '--help'];
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
        `unknown command "${command}"${suggestion(first, second)} (see: multidrm --help)`,
      );
    }
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout(HELP[command] as string);
      return 0;
    }
    switch (command) {
      case 'token':
        // The group alone: what its commands are, as a usage error.
        io.stdout(HELP.token as string);
        return 2;
      case 'token create':
        await tokenCreate(rest, io);
        return 0;
      case 'token inspect':
        return await tokenInspect(rest, io);
      case 'token convert':
        await tokenConvert(rest, io);
        return 0;
      case 'explain':
        await explain(rest, io);
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

/** `; did you mean "token create"?` for a mistyped command, or nothing when none is close. */
function suggestion(first: string | undefined, second: string | undefined): string {
  if (first === undefined) return '';
  const word = TOP_LEVEL.includes(first) ? first : nearest(first, TOP_LEVEL);
  if (word === undefined) return '';
  let meant = word;
  if (word === 'token' && second !== undefined && !second.startsWith('-')) {
    const sub = TOKEN_COMMANDS.includes(second) ? second : nearest(second, TOKEN_COMMANDS);
    if (sub === undefined)
      return first === 'token' ? '; the token commands: create, inspect, convert' : '';
    meant = `token ${sub}`;
  }
  return `; did you mean "${meant}"?`;
}
