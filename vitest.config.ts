import { defineConfig } from "vitest/config"

// Three projects: the domain's and the webhooks package's tests are pure (no database);
// everything else runs against a fresh PostgreSQL database made by the global setup.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    sequence: { concurrent: false },
    projects: [
      { extends: true, test: { name: "domain", include: ["packages/domain/src/**/*.test.ts", "packages/domain/test/**/*.test.ts"] } },
      { extends: true, test: { name: "webhooks", include: ["packages/webhooks/src/**/*.test.ts", "packages/webhooks/test/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["packages/server/src/**/*.test.ts", "packages/server/test/**/*.test.ts", "packages/testkit/src/**/*.test.ts", "packages/testkit/test/**/*.test.ts"],
          globalSetup: ["packages/testkit/src/globalSetup.ts"]
        }
      }
    ]
  }
})
