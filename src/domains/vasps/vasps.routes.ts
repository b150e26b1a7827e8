import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { paginationQuery } from '../../platform/http/pagination.js';
import { parseInput } from '../../platform/http/validate.js';
import { listVasps } from './vasps.service.js';

const listQuery = z.object(paginationQuery);

export async function vaspRoutes(app: FastifyInstance) {
  app.get('/vasps', { config: { query: listQuery } }, async (req) => listVasps(req.ctx, parseInput(listQuery, req.query)));
}
