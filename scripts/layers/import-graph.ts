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

/** Files (`.ts`, relative to `root`, `/`-separated) and their imports of other files under `root`. */
export interface ImportGraph {
  files: readonly string[];
  edges: readonly ImportEdge[];
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
  for (const file of absolute) {
    for (const specifier of specifiersOf(file, readFileSync(file, "utf8"))) {
      if (!specifier.startsWith("./") && !specifier.startsWith("../")) continue;
      const target = resolveRelative(file, specifier);
      if (target === null || relative(root, target).startsWith("..")) continue;
      edges.push({ from: name(file), specifier, to: name(target) });
    }
  }
  return { files: absolute.map(name), edges };
}
