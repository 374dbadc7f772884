import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * `npm run test:unit`: the tests beside the code (`src/`, `scripts/`) that need no server and no
 * browser. A test needs PostgreSQL or Redis when it imports `test/support/services.ts` (directly
 * or through `databases.ts`), and Chromium when it imports `chromium.ts`; those are left to
 * `npm test`.
 */
const NEEDS_SERVICES = /support\/(services|databases|own-postgres|chromium|bun-gateway)\.ts/;
const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? testFiles(join(dir, entry.name)) : entry.name.endsWith(".test.ts") ? [join(dir, entry.name)] : [],
  );
const candidates = [...testFiles("src"), ...testFiles("scripts")];
const needServices = candidates.filter((file) => NEEDS_SERVICES.test(readFileSync(file, "utf8")));

export default defineConfig({
  test: {
    globalSetup: ["test/support/build-dashboard.global.ts"],
    include: ["src/**/*.test.ts", "scripts/**/*.test.ts"],
    exclude: ["**/node_modules/**", ...needServices],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    allowOnly: false,
  },
});
