import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ROOT } from './built-processes.js';

/**
 * An operator command (src/cli/<name>.ts) as its own process, the way `npm run <script>` runs it, from the source
 * (node --import tsx, without npx's own start-up). Resolves with its output; rejects with `code` and `stderr` when
 * it exits non-zero.
 */
export function runCli(name: string, args: string[], env: Record<string, string | undefined>): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', `src/cli/${name}.ts`, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
}
