import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { AppConfig } from '../../config.js';

/** Where `npm run build` writes the dashboard: dist/dashboard (from src/ under tsx and from dist/ alike). */
export const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../../dist/dashboard', import.meta.url));

/**
 * The dashboard (issue 15): a static single-page app at /dashboard that talks to the server only
 * through the public API with the signed-in token's Basic credentials. The page gets the API base
 * path and the idle timeout through two <meta> tags filled in here; nothing else is server-side.
 */
export async function registerDashboard(app: FastifyInstance, config: AppConfig): Promise<void> {
  const dir = path.resolve(config.DASHBOARD_DIR ?? DEFAULT_DASHBOARD_DIR);
  const indexFile = path.join(dir, 'index.html');
  const built = existsSync(indexFile);
  const page = built
    ? readFileSync(indexFile, 'utf8')
        .replaceAll('__SVC_API_BASE__', escapeAttr(config.API_BASE_PATH))
        .replaceAll('__SVC_IDLE_MINUTES__', String(config.DASHBOARD_IDLE_MINUTES))
    : undefined;

  const secure = (reply: FastifyReply) =>
    reply
      .header('content-security-policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');

  await app.register(async (scope) => {
    scope.get('/dashboard', async (_req, reply) => {
      secure(reply).header('cache-control', 'no-store');
      if (!page) {
        reply.status(503).type('text/html; charset=utf-8');
        return '<!doctype html><title>Dashboard not built</title><p>The dashboard is not built. Run <code>npm run build</code> and restart the server.</p>';
      }
      return reply.type('text/html; charset=utf-8').send(page);
    });
    if (built && existsSync(path.join(dir, 'assets'))) {
      await scope.register(fastifyStatic, {
        root: path.join(dir, 'assets'),
        prefix: '/dashboard/assets/',
        decorateReply: false,
        index: false,
        // One route per built file (listed at start): an unknown asset is a plain 404, not a
        // wildcard match the not-found handler would answer 405.
        wildcard: false,
        // File names carry a content hash (Vite): cache them for good.
        immutable: true,
        maxAge: '365d',
        setHeaders: (res) => {
          res.setHeader('x-content-type-options', 'nosniff');
        },
      });
    }
  });
}

function escapeAttr(s: string): string {
  return s.replace(/[&"<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[c]!);
}
