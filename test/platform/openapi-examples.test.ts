import { describe, expect, it } from 'vitest';
import { loadOpenApi, resolveRef, validateAgainstSchema } from '../helpers/openapi.js';

type Media = { schema?: Record<string, unknown>; example?: unknown; examples?: Record<string, { value?: unknown; $ref?: string }> };

/** Every request body in openapi.yaml shows an example, and every example is valid for its schema. */
describe('openapi.yaml request body examples', () => {
  const doc = loadOpenApi() as unknown as { paths: Record<string, Record<string, { requestBody?: { $ref?: string; content?: Record<string, Media> } }>> };
  const bodies: Array<{ at: string; media: Media }> = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!op || typeof op !== 'object' || !op.requestBody) continue;
      const rb = (op.requestBody.$ref ? resolveRef(op.requestBody.$ref) : op.requestBody) as { content?: Record<string, Media> };
      for (const [type, media] of Object.entries(rb.content ?? {})) bodies.push({ at: `${method.toUpperCase()} ${path} ${type}`, media });
    }
  }

  it('covers every request body', () => {
    expect(bodies.length).toBeGreaterThanOrEqual(40);
    expect(bodies.filter((b) => b.media.example === undefined && !b.media.examples).map((b) => b.at)).toEqual([]);
  });

  it('every example matches its schema', () => {
    const problems: string[] = [];
    for (const b of bodies) {
      const values = b.media.example !== undefined ? [b.media.example] : Object.values(b.media.examples ?? {}).map((e) => (e.$ref ? (resolveRef(e.$ref) as { value?: unknown }).value : e.value));
      values.forEach((v, i) => {
        const errors = validateAgainstSchema(`${b.at}#${i}`, b.media.schema ?? {}, v);
        if (errors.length) problems.push(`${b.at}: ${errors.map((e) => `${e.instancePath} ${e.message}`).join('; ')}`);
      });
    }
    expect(problems).toEqual([]);
  });
});
