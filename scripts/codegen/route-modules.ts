import { HTTP_METHODS, type OpenApiDocument } from "./document.ts";

/** `createApiKey` → `registerCreateApiKey`: the function each `src/routes/<operationId>.ts` exports. */
export function registerFunctionName(operationId: string): string {
  return `register${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}`;
}

/**
 * Renders `src/generated/route-modules.gen.ts`: a static import of every operation's route file
 * (so `bun build` bundles them) and the list the app registers. An operation without its route
 * file, or a route file without its `register…` function, fails the typecheck.
 */
export function renderRouteModules(document: OpenApiDocument): string {
  const operationIds = Object.keys(document.paths)
    .sort()
    .flatMap((path) => HTTP_METHODS.flatMap((method) => document.paths[path]?.[method]?.operationId ?? []));
  const imports = [...operationIds]
    .sort()
    .map((id) => `import { ${registerFunctionName(id)} } from "../routes/${id}.ts";`);
  return [
    'import type { GatewayApp } from "../app-env.ts";',
    'import type { GatewayDeps } from "../deps.ts";',
    ...imports,
    "",
    "/** Registers one operation's route on the app. */",
    "export type RegisterRoute = (app: GatewayApp, deps: GatewayDeps) => void;",
    "",
    "/** The register function of every operation of the document, in path order. */",
    "export const routeRegistrations: readonly RegisterRoute[] = [",
    ...operationIds.map((id) => `  ${registerFunctionName(id)},`),
    "];",
    "",
  ].join("\n");
}
