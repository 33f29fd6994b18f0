import { spawnSync } from 'node:child_process';

// Widevine's verified media path (VMP): a license service that asks for it (Widevine at a hardware
// or VMP-checked level) refuses a desktop app whose package is not VMP-signed. Only a
// Widevine-enabled Electron build can be signed, by its vendor's signing tool, run after packaging.
// This step runs that tool when the packager has it, and says plainly when it does not.

/** The command that signs a packaged app folder, e.g. `python3 -m <vendor tool> sign-pkg`. */
export const SIGN_COMMAND_VARIABLE = 'MULTIDRM_VMP_SIGN';

export interface PackContext {
  appOutDir: string;
  electronPlatformName: string;
}

export interface SignOutcome {
  signed: boolean;
  /** One sentence for the packaging log. */
  message: string;
}

type Run = (command: string, args: string[]) => { status: number | null; error?: Error };

const runCommand: Run = (command, args) => {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  return result.error ? { status: result.status, error: result.error } : { status: result.status };
};

export class VmpSignError extends Error {
  override name = 'VmpSignError';
  readonly code = 'VMP_SIGN_FAILED';
}

/** Signs the packaged app when a signing command is configured; throws when signing fails. */
export function vmpSign(
  context: PackContext,
  env: NodeJS.ProcessEnv = process.env,
  run: Run = runCommand,
): SignOutcome {
  const platform = context.electronPlatformName;
  if (platform !== 'darwin' && platform !== 'win32') {
    return {
      signed: false,
      message: `VMP signing: not done for ${platform}: Widevine's verified media path exists for macOS and Windows only, so this package plays Widevine at software level (L3) at best.`,
    };
  }
  const configured = env[SIGN_COMMAND_VARIABLE]?.trim();
  if (!configured) {
    return {
      signed: false,
      message: `VMP signing: SKIPPED, ${SIGN_COMMAND_VARIABLE} is not set. The package is not VMP-signed: a license service that requires the verified media path will refuse its Widevine license requests. Install the signing tool of your Widevine-enabled Electron build and set ${SIGN_COMMAND_VARIABLE} to its sign command (see the demo README).`,
    };
  }
  const [command, ...args] = configured.split(/\s+/) as [string, ...string[]];
  const result = run(command, [...args, context.appOutDir]);
  if (result.error !== undefined || result.status !== 0) {
    const why = result.error
      ? `could not be started (${result.error.message})`
      : `exited with ${result.status}`;
    throw new VmpSignError(
      `VMP signing failed: "${command}" ${why}. Check that the signing tool is installed and its account is logged in; the package was left unsigned.`,
    );
  }
  return { signed: true, message: `VMP signing: ${context.appOutDir} signed with ${command}.` };
}

/** electron-builder's afterPack hook (scripts/vmp-sign-hook.cjs loads this). */
export function afterPack(context: PackContext): void {
  console.log(vmpSign(context).message);
}
