import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The real-component tier (`npm run test:real`, vitest.real.config.ts) needs Go-built binaries.
    exclude: ["**/node_modules/**", "test/**/*.real.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // 2-core machines: more workers than cores only adds contention.
    maxWorkers: 2,
  },
});
