import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The browser dashboard is bundled once before any file runs (skipped when up to date), and
    // PostgreSQL and Redis are found or started (test/support/services.global.ts).
    globalSetup: ["test/support/build-dashboard.global.ts", "test/support/services.global.ts"],
    include: ["src/**/*.test.ts", "scripts/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: keep file-level parallelism modest so timing-sensitive tests stay honest.
    maxWorkers: 2,
    allowOnly: false,
  },
});
