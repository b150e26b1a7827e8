import { spawn, type ChildProcess } from 'node:child_process';
import type { TestEnv } from './app.js';
import { eventually } from './app.js';
import { freePort } from './built-processes.js';

export { freePort };

/**
 * One real service process from the sources (src/server.ts or src/worker.ts through tsx) on a test's
 * database and Redis, for fault tests (kill -9, restarts). built-processes.ts runs the built dist/.
 */
export class ServiceProcess {
  child!: ChildProcess;
  private exited: Promise<number | null> = Promise.resolve(null);

  constructor(
    readonly kind: 'api' | 'worker',
    readonly env: Record<string, string>,
    readonly port?: number,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<this> {
    const entry = this.kind === 'api' ? 'src/server.ts' : 'src/worker.ts';
    this.child = spawn(process.execPath, ['--import', 'tsx', entry], {
      env: { ...process.env, ...this.env, ...(this.port ? { PORT: String(this.port), HOST: '127.0.0.1' } : {}) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    // Bounded generously: on a loaded 2-core machine compiling the service through tsx takes a while.
    if (this.kind === 'api') await eventually(async () => (await fetch(`${this.url}/healthz`).catch(() => undefined))?.ok, 180_000, 100);
    return this;
  }

  /** SIGKILL: no shutdown handler runs, as when a machine dies. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    await this.exited;
  }

  /** Resolves when the process has exited (for faults it causes itself). */
  waitForExit(): Promise<number | null> {
    return this.exited;
  }
}

/** The settings that put a child process on a test environment's database and Redis prefix. */
export function processEnv(env: TestEnv, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: env.config.DATABASE_URL,
    REDIS_URL: env.config.REDIS_URL,
    REDIS_PREFIX: env.config.REDIS_PREFIX,
    LOG_LEVEL: 'warn',
    DATABASE_POOL_MAX: '10',
    ...extra,
  };
}

/** Starts an API process on a free port. */
export async function startApi(env: TestEnv, extra: Record<string, string> = {}): Promise<ServiceProcess> {
  return new ServiceProcess('api', processEnv(env, extra), await freePort()).start();
}

export async function startWorker(env: TestEnv, extra: Record<string, string> = {}): Promise<ServiceProcess> {
  return new ServiceProcess('worker', processEnv(env, extra)).start();
}

/** An HTTP call to a child process with a platform's credentials. */
export async function call(base: string, auth: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/2025-10-13${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}
