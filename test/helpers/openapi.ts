import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Test helpers over `openapi.yaml`: list what it documents and check response bodies against it,
 * so contract tests fail when the server and its published description drift apart.
 */

export const OPENAPI_FILE = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

// The document is plain parsed YAML; a loose type keeps the helpers short.
export type OpenApiDocument = Record<string, any>;
type Node = Record<string, any>;

export interface DocumentedOperation {
  /** Upper-case HTTP method. */
  method: string;
  /** Full path template as served: server path prefix + OpenAPI path key, e.g. `/2025-10-13/webhook-events/{eventId}`. */
  path: string;
  /** The OpenAPI `paths` key, e.g. `/webhook-events/{eventId}`. */
  template: string;
  /** True when the operation requires authentication (its effective `security` is non-empty). */
  authenticated: boolean;
  operation: Node;
  pathItem: Node;
}

/** Name under which the whole document is registered with Ajv, so `$ref`s resolve into it. */
const AJV_DOC_KEY = 'openapi';

let cachedDoc: OpenApiDocument | undefined;
let cachedOperations: DocumentedOperation[] | undefined;
let cachedAjv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

/** The parsed `openapi.yaml` (parsed once per test file). */
export function loadOpenApi(): OpenApiDocument {
  cachedDoc ??= parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
  return cachedDoc;
}

/** Path part of a server URL without trailing slash: `http://h:3000/2025-10-13/` → `/2025-10-13`, `http://h:3000` → ``. */
function serverPathPrefix(servers: unknown): string {
  const first = Array.isArray(servers) ? (servers[0] as Node | undefined) : undefined;
  if (!first || typeof first.url !== 'string') return '';
  const pathname = new URL(first.url, 'http://placeholder.invalid').pathname;
  return pathname.replace(/\/+$/, '');
}

/** The API base path declared by the document's top-level `servers`, e.g. `/2025-10-13`. */
export function apiBasePath(): string {
  return serverPathPrefix(loadOpenApi().servers);
}

function allOperations(): DocumentedOperation[] {
  if (cachedOperations) return cachedOperations;
  const doc = loadOpenApi();
  const out: DocumentedOperation[] = [];
  const globalSecurity: unknown[] = Array.isArray(doc.security) ? doc.security : [];
  for (const [template, rawItem] of Object.entries<Node>(doc.paths ?? {})) {
    const pathItem = rawItem.$ref ? (resolveRef(rawItem.$ref) as Node) : rawItem;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method] as Node | undefined;
      if (!operation) continue;
      // Operation-level servers override path-level, which override the document's.
      const servers = operation.servers ?? pathItem.servers ?? doc.servers;
      const security: unknown[] = Array.isArray(operation.security) ? operation.security : globalSecurity;
      out.push({
        method: method.toUpperCase(),
        path: serverPathPrefix(servers) + template,
        template,
        authenticated: security.length > 0,
        operation,
        pathItem,
      });
    }
  }
  cachedOperations = out;
  return out;
}

/** Every documented operation as `{method: 'GET', path: '/2025-10-13/config'}` (operational paths unprefixed). */
export function listDocumentedOperations(): Array<{ method: string; path: string }> {
  return allOperations().map(({ method, path }) => ({ method, path }));
}

/** Every documented operation with its OpenAPI objects, for structural checks. */
export function listDocumentedOperationDetails(): DocumentedOperation[] {
  return [...allOperations()];
}

function unescapePointerSegment(segment: string): string {
  return decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Resolve a local `$ref` (`#/components/...`) against the document; undefined when it points nowhere. */
export function resolveRef(ref: string, doc: OpenApiDocument = loadOpenApi()): unknown {
  if (!ref.startsWith('#')) return undefined;
  const pointer = ref.slice(1);
  if (pointer === '') return doc;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    if (node === null || typeof node !== 'object') return undefined;
    const key = unescapePointerSegment(raw);
    if (!Object.prototype.hasOwnProperty.call(node, key)) return undefined;
    node = (node as Node)[key];
  }
  return node;
}

/** Every `$ref` string in the document, with the JSON pointer of where it occurs. */
export function listRefs(doc: OpenApiDocument = loadOpenApi()): Array<{ at: string; ref: string }> {
  const out: Array<{ at: string; ref: string }> = [];
  const walk = (node: unknown, at: string) => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => walk(child, `${at}/${i}`));
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Node)) {
      if (key === '$ref' && typeof value === 'string') out.push({ at, ref: value });
      else walk(value, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
  };
  walk(doc, '#');
  return out;
}

/** Follow `$ref` chains of non-schema objects (responses, parameters, headers). */
function deref(node: Node): Node {
  let current = node;
  const seen = new Set<string>();
  while (typeof current.$ref === 'string') {
    const ref: string = current.$ref;
    if (seen.has(ref)) throw new Error(`openapi.yaml: circular $ref ${ref}`);
    seen.add(ref);
    const target = resolveRef(ref);
    if (target === undefined || target === null || typeof target !== 'object') {
      throw new Error(`openapi.yaml: unresolvable $ref ${ref}`);
    }
    current = target as Node;
  }
  return current;
}

function getAjv(): Ajv2020 {
  if (cachedAjv) return cachedAjv;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  // ajv-formats is CommonJS: under Node's ESM loader the default import is module.exports.
  const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;
  addFormats(ajv);
  // OpenAPI's numeric formats, unknown to ajv-formats.
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  // OpenAPI annotation keywords that are not JSON Schema 2020-12 keywords.
  ajv.addVocabulary(['discriminator', 'example', 'xml', 'externalDocs']);
  // The document is not itself a JSON Schema, so skip meta-validation; register it so that
  // `openapi#/components/schemas/X` (and the document's own `#/...` refs) resolve.
  ajv.addSchema(loadOpenApi(), AJV_DOC_KEY, undefined, false);
  cachedAjv = ajv;
  return ajv;
}

/** Copy of a schema whose local `$ref`s point into the document registered with Ajv. */
function anchorRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(anchorRefs);
  if (node === null || typeof node !== 'object') return node;
  const out: Node = {};
  for (const [key, value] of Object.entries(node as Node)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${AJV_DOC_KEY}${value}` : anchorRefs(value);
  }
  return out;
}

/** Compile (once) a validator for a schema found in the document. */
function validatorFor(cacheKey: string, schema: Node): ValidateFunction {
  let validate = validators.get(cacheKey);
  if (!validate) {
    validate = getAjv().compile(anchorRefs(schema) as Node);
    validators.set(cacheKey, validate);
  }
  return validate;
}

/** Validate a value against `#/components/schemas/<name>`; returns the Ajv errors (empty when valid). */
export function validateAgainstComponent(name: string, value: unknown): ErrorObject[] {
  if (resolveRef(`#/components/schemas/${name}`) === undefined) throw new Error(`openapi.yaml: no component schema ${name}`);
  const validate = validatorFor(`component:${name}`, { $ref: `#/components/schemas/${name}` });
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

function formatErrors(errors: ErrorObject[]): string {
  return errors
    .map((e) => `  - ${e.instancePath || '(root)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)} [schema ${e.schemaPath}]`)
    .join('\n');
}

function compilePathTemplate(template: string): { regex: RegExp; params: number; literalLength: number } {
  let params = 0;
  let literalLength = 0;
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      if (/^\{[^}]+\}$/.test(part)) {
        params += 1;
        return '[^/]+';
      }
      literalLength += part.length;
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return { regex: new RegExp(`^${source}$`), params, literalLength };
}

function findOperation(method: string, path: string): DocumentedOperation | undefined {
  const upper = method.toUpperCase();
  return allOperations().find((op) => op.method === upper && op.path === path);
}

/**
 * The documented template matching a concrete request path, e.g.
 * `/2025-10-13/webhook-events/Webhook:0190…` → `/2025-10-13/webhook-events/{eventId}`.
 * A literal segment beats a parameter when both match. Undefined when nothing matches.
 */
export function matchTemplate(method: string, concretePath: string): string | undefined {
  const upper = method.toUpperCase();
  const path = concretePath.split(/[?#]/)[0] ?? concretePath;
  let best: { path: string; params: number; literalLength: number } | undefined;
  for (const op of allOperations()) {
    if (op.method !== upper) continue;
    const { regex, params, literalLength } = compilePathTemplate(op.path);
    if (!regex.test(path)) continue;
    if (!best || params < best.params || (params === best.params && literalLength > best.literalLength)) {
      best = { path: op.path, params, literalLength };
    }
  }
  return best?.path;
}

/**
 * Assert that `body` is what `openapi.yaml` documents for `method path → status`.
 * `path` is the template with the base prefix (`/2025-10-13/webhook-events/{eventId}`); a concrete
 * path is also accepted and matched to its template. Uses the response for the exact status, else
 * `4XX`-style ranges, else `default`. Throws when the operation or status is undocumented, when the
 * response has no `application/json` schema but a body was given, or when the body is invalid.
 */
export function assertMatchesResponseSchema(method: string, path: string, status: number, body: unknown): void {
  const upper = method.toUpperCase();
  const op = findOperation(upper, path) ?? (() => {
    const template = matchTemplate(upper, path);
    return template ? findOperation(upper, template) : undefined;
  })();
  if (!op) throw new Error(`openapi.yaml documents no operation ${upper} ${path}`);

  const responses: Node = op.operation.responses ?? {};
  const statusKey = [String(status), `${Math.floor(status / 100)}XX`, 'default'].find((k) => k in responses);
  if (!statusKey) {
    throw new Error(`openapi.yaml documents no ${status} response for ${upper} ${op.path} (documented: ${Object.keys(responses).join(', ')})`);
  }
  const response = deref(responses[statusKey] as Node);
  const content: Node = response.content ?? {};
  const jsonKey = Object.keys(content).find((k) => k === 'application/json' || k.startsWith('application/json;'));
  const schema = jsonKey ? (content[jsonKey] as Node).schema : undefined;
  if (!schema) {
    if (body === undefined || body === null || body === '') return;
    throw new Error(`openapi.yaml documents no application/json body for ${status} on ${upper} ${op.path}, but a body was given`);
  }

  const validate = validatorFor(`${op.method} ${op.path} ${statusKey}`, schema as Node);
  if (!validate(body)) {
    throw new Error(
      `Response body does not match openapi.yaml for ${upper} ${op.path} → ${status} (schema of response '${statusKey}'):\n` +
        `${formatErrors(validate.errors ?? [])}\n  body: ${truncate(JSON.stringify(body))}`,
    );
  }
}

function truncate(text: string | undefined, max = 2000): string {
  if (text === undefined) return 'undefined';
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Ajv instance with the document registered; for tests that need raw schema checks (e.g. meta-validation). */
export function openApiAjv(): Ajv2020 {
  return getAjv();
}

/** Validate a value against any schema of the document (its `$ref`s resolve into the document). */
export function validateAgainstSchema(cacheKey: string, schema: Node, value: unknown): ErrorObject[] {
  const validate = validatorFor(`schema:${cacheKey}`, schema);
  return validate(value) ? [] : [...(validate.errors ?? [])];
}
