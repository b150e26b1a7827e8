import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built service (dist/server.js, dist/worker.js) as child processes: used by the start-up test and
 * by `npm run bench`. No vitest imports here. Readiness is waited for by bounded polling, never by a sleep
 * of a fixed length.
 */

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServiceProcess {
  child: ChildProcess;
  /** Milliseconds from spawn to ready (API: /readyz answered 200; worker: it logged `worker ready`). */
  readyMs: number;
  /** Everything the process wrote so far (stdout and stderr, for failure messages). */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

export interface ApiProcess extends ServiceProcess {
  baseUrl: string;
  port: number;
}

/** A port nobody listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export function builtEntry(name: 'server' | 'worker'): string {
  const file = path.join(ROOT, 'dist', `${name}.js`);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (\`npm ci\` builds it too).`);
  return file;
}

function spawnService(name: 'server' | 'worker', env: Record<string, string>, onLine?: (line: string) => void, args: string[] = []) {
  const child = spawn(process.execPath, [builtEntry(name), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = () => {
    let partial = '';
    return (chunk: Buffer) => {
      const s = chunk.toString('utf8');
      // Only the start of the output is kept (start-up messages and early failures); the rest is drained.
      if (out.length < 64_000) out += s;
      if (!onLine) return;
      const lines = (partial + s).split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (line) onLine(line);
    };
  };
  child.stdout!.on('data', keep());
  child.stderr!.on('data', keep());
  let exited: number | null | undefined;
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = code ?? (signal ? null : 0);
      resolve(exited);
    }),
  );
  const stop = async (graceMs = 15_000) => {
    if (exited !== undefined) return exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exit;
    clearTimeout(timer);
    return code;
  };
  return { child, output: () => out, stop, exit, hasExited: () => exited !== undefined };
}

/**
 * Starts dist/server.js on a free port of 127.0.0.1 and waits (bounded) until GET /readyz answers 200.
 * `env` must carry DATABASE_URL and REDIS_URL (and should carry a REDIS_PREFIX of the caller's own).
 * The API runs alone (RUN_WORKER_IN_PROCESS=false, as beside `npm run worker`) unless `opts.asNpmStart`:
 * then it starts with `npm start`'s defaults (the worker in the process in the sandbox) and `opts.args`.
 */
export async function startBuiltApi(env: Record<string, string>, timeoutMs = 60_000, opts: { asNpmStart?: boolean; args?: string[] } = {}): Promise<ApiProcess> {
  const port = await freePort();
  const started = performance.now();
  const defaults: Record<string, string> = opts.asNpmStart ? {} : { RUN_WORKER_IN_PROCESS: 'false' };
  const p = spawnService('server', { HOST: '127.0.0.1', ...defaults, ...env, PORT: String(port) }, undefined, opts.args);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (p.hasExited()) throw new Error(`the API exited before it was ready:\n${p.output()}`);
    const ok = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await p.stop(2_000);
      throw new Error(`the API was not ready within ${timeoutMs} ms:\n${p.output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child: p.child, readyMs: Math.round(performance.now() - started), output: p.output, stop: p.stop, baseUrl, port };
}

/** Starts dist/worker.js and waits (bounded) until it logs `worker ready` (needs LOG_LEVEL info or lower). */
export async function startBuiltWorker(env: Record<string, string>, timeoutMs = 60_000): Promise<ServiceProcess> {
  const started = performance.now();
  let readyAt: number | undefined;
  const p = spawnService('worker', { LOG_LEVEL: 'info', ...env }, (line) => {
    if (readyAt === undefined && line.includes('"msg":"worker ready"')) readyAt = performance.now();
  });
  const deadline = Date.now() + timeoutMs;
  while (readyAt === undefined) {
    if (p.hasExited()) throw new Error(`the worker exited before it was ready:\n${p.output()}`);
    if (Date.now() > deadline) {
      await p.stop(2_000);
      throw new Error(`the worker did not log "worker ready" within ${timeoutMs} ms:\n${p.output()}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return { child: p.child, readyMs: Math.round(readyAt - started), output: p.output, stop: p.stop };
}
