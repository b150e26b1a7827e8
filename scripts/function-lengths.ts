import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** A function longer than the house limit (house-style.md, TigerBeetle's 70 lines). */
export interface LongFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
}

/**
 * Every function, method, arrow function and function expression of the .ts files under `dir` whose body
 * spans more than `maxLines` lines (from its first line to its last), nested ones counted on their own.
 */
export function longFunctions(dir: string, maxLines: number): LongFunction[] {
  const out: LongFunction[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        if (end - start + 1 > maxLines) out.push({ file, name: nameOf(node), line: start + 1, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  if (node.parent && ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name)) return node.parent.name.text;
  return '(anonymous)';
}

// `npx tsx scripts/function-lengths.ts src/domains/payments 70`: lists them, exit 1 when there are any.
if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const found = longFunctions(process.argv[2] ?? 'src/domains/payments', Number(process.argv[3] ?? 70));
  for (const f of found) console.log(`${f.file}:${f.line} ${f.name} ${f.lines} lines`);
  process.exit(found.length > 0 ? 1 : 0);
}
