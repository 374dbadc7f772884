/**
 * The import graph of a source tree, read with the TypeScript compiler's parser: every relative
 * `import` and `export … from` (type-only ones too), `import()` calls and `import("…")` types.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/** One import: the importing file, what it names, and the file that resolves to (relative to the root). */
export interface ImportEdge {
  from: string;
  specifier: string;
  to: string;
}

/** An import of a package (`kysely`, `node:fs`) by a file. */
export interface PackageImport {
  from: string;
  specifier: string;
}

/** Where a file writes an SQL statement in a string (`SELECT … FROM`, `INSERT INTO`…). */
export interface SqlText {
  from: string;
  line: number;
  text: string;
}

/**
 * Files (`.ts`, relative to `root`, `/`-separated), their imports of other files under `root`,
 * the packages they import and the SQL statements their strings hold.
 */
export interface ImportGraph {
  files: readonly string[];
  edges: readonly ImportEdge[];
  packages?: readonly PackageImport[];
  sql?: readonly SqlText[];
}

/** An SQL statement's opening, in capitals as the code writes them (prose rarely reads so). */
const SQL_STATEMENT = /^\s*(SELECT\b[\s\S]*\bFROM\b|INSERT\s+INTO\b|UPDATE\s+\S+\s+SET\b|DELETE\s+FROM\b|(CREATE|ALTER|DROP)\s+(TABLE|INDEX|VIEW|MATERIALIZED\s+VIEW)\b)/;

/** The string and template literals of a file's text that open an SQL statement. */
export function sqlTextsOf(fileName: string, text: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { line: number; text: string }[] = [];
  const visit = (node: ts.Node): void => {
    const literal = ts.isStringLiteralLike(node) ? node.text : ts.isTemplateExpression(node) ? node.head.text : null;
    if (literal !== null && SQL_STATEMENT.test(literal)) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: literal.trim().slice(0, 60) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Module specifiers a file's text names, in order of appearance. */
export function specifiersOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) found.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFilesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFilesUnder(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

function resolveRelative(fromFile: string, specifier: string): string | null {
  const path = resolve(dirname(fromFile), specifier);
  for (const candidate of [path, `${path}.ts`, join(path, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** The graph of every `.ts` file under `root`; imports leaving `root` or naming packages are left out. */
export function readImportGraph(root: string): ImportGraph {
  const absolute = sourceFilesUnder(root).sort();
  const name = (path: string): string => relative(root, path).split(sep).join("/");
  const edges: ImportEdge[] = [];
  const packages: PackageImport[] = [];
  const sql: SqlText[] = [];
  for (const file of absolute) {
    const text = readFileSync(file, "utf8");
    for (const found of sqlTextsOf(file, text)) sql.push({ from: name(file), ...found });
    for (const specifier of specifiersOf(file, text)) {
      if (!specifier.startsWith("./") && !specifier.startsWith("../")) {
        packages.push({ from: name(file), specifier });
        continue;
      }
      const target = resolveRelative(file, specifier);
      if (target === null || relative(root, target).startsWith("..")) continue;
      edges.push({ from: name(file), specifier, to: name(target) });
    }
  }
  return { files: absolute.map(name), edges, packages, sql };
}
