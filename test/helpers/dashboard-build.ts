import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Builds the dashboard from the sources under test (not whatever dist/ holds) into a fresh temporary
 * folder named after `prefix`, for the browser tests' DASHBOARD_DIR; the caller removes it.
 */
export function buildDashboard(prefix: string): string {
  const outDir = mkdtempSync(path.join(tmpdir(), prefix));
  execFileSync(process.execPath, [path.resolve('node_modules/vite/bin/vite.js'), 'build', '--config', 'dashboard/vite.config.ts', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], { stdio: 'inherit' });
  return outDir;
}
