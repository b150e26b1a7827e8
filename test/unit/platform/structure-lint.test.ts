import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { longFunctions } from '../../../scripts/function-lengths.js';

/**
 * Issue 24 item 3/4: planner and runtime tricks live in src/platform (sql/planner.ts), not in the domains;
 * functions stay short; the old adapter helper file stays gone. Read with the TypeScript compiler API, so a
 * comment or a string that only names a trick is not counted.
 */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** `new Function(…)` expressions and string/template literals containing `) IS TRUE` in the file's code. */
function tricksIn(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (n: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1}`;
  const visit = (n: ts.Node): void => {
    if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'Function') found.push(`${at(n)} new Function`);
    if ((ts.isStringLiteralLike(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) && /\)\s*IS\s+TRUE/i.test(n.text)) found.push(`${at(n)} IS TRUE wrap`);
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

describe('structure lint (issue 24)', () => {
  it('no IS TRUE wrap and no new Function in src/domains (checkedAfterKeyLookup in src/platform/sql/planner.ts says it once)', () => {
    expect(tsFiles('src/domains').flatMap(tricksIn)).toEqual([]);
  });

  it('the trick check finds what it looks for (it is not vacuous)', () => {
    expect(tricksIn('src/platform/sql/planner.ts').length).toBeGreaterThan(0);
  });

  it('no function in src/domains/payments runs past 70 lines, nor buildAdapters', () => {
    expect(longFunctions('src/domains/payments', 70)).toEqual([]);
    expect(longFunctions('src/adapters', 70).filter((f) => f.file.endsWith('registry.ts'))).toEqual([]);
  });

  it('src/adapters/current.ts is gone', () => {
    expect(existsSync('src/adapters/current.ts')).toBe(false);
  });
});
