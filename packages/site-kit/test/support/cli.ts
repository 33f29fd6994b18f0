import { spawn } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '../../bin/multidrm.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns the real CLI, as a user's shell would. */
export function cli(
  args: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
