import { defineConfig } from 'prisma/config';

// Prisma's CLI is used here only for `prisma generate`; migrations are applied by
// `npm run db:migrate` (src/cli/db-migrate.ts), see docs/decisions.md (A22).
export default defineConfig({
  schema: 'prisma/schema',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' },
});
