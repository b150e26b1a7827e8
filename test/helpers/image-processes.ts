import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { parse } from 'yaml';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** The exec-form arrays of an instruction in the Dockerfile (ENTRYPOINT, CMD). */
export function dockerfileExec(instruction: 'ENTRYPOINT' | 'CMD'): string[] {
  const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const lines = text.split('\n').filter((l) => l.startsWith(`${instruction} `));
  const last = lines.at(-1);
  if (!last) throw new Error(`Dockerfile has no ${instruction}`);
  const value = JSON.parse(last.slice(instruction.length + 1)) as unknown;
  if (!Array.isArray(value)) throw new Error(`Dockerfile ${instruction} is not in exec form`);
  return value as string[];
}

/** A compose service's `command` (exec form). */
export function composeCommand(service: string, file = 'docker-compose.yml'): string[] {
  const doc = parse(readFileSync(path.join(ROOT, file), 'utf8'), { merge: true }) as { services: Record<string, { command?: unknown }> };
  const cmd = doc.services[service]?.command;
  if (!Array.isArray(cmd)) throw new Error(`${file}: service ${service} has no exec-form command`);
  return cmd as string[];
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** dist/ as the image builds it (`npm run build`), rebuilt when a source file is newer. */
export function ensureBuilt(): void {
  const marker = path.join(ROOT, 'dist/server.js');
  if (existsSync(marker) && statSync(marker).mtimeMs >= newestMtime(path.join(ROOT, 'src'))) return;
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

export interface Proc {
  child: ChildProcess;
  /** Every JSON log line so far. */
  logs: Array<Record<string, unknown>>;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * The image's entry command run as the image runs it: ENTRYPOINT (tini) + the command, from the
 * repository root (the image's /app), with only the given environment.
 */
export function startImageCommand(command: string[], env: Record<string, string>): Proc {
  const entrypoint = dockerfileExec('ENTRYPOINT');
  if (!existsSync(entrypoint[0]!)) throw new Error(`${entrypoint[0]} is missing: install it (apt-get install tini), as .ci/run does`);
  const child = spawn(entrypoint[0]!, [...entrypoint.slice(1), ...command], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const logs: Array<Record<string, unknown>> = [];
  const reader = () => {
    let pending = '';
    return (chunk: Buffer) => {
      text += chunk.toString();
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        try {
          if (line.startsWith('{')) logs.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          /* not a log line: output() keeps it */
        }
      }
    };
  };
  child.stdout!.on('data', reader());
  child.stderr!.on('data', reader());
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, logs, output: () => text, exited };
}
