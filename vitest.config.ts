import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    globalSetup: ["packages/testkit/src/globalSetup.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    sequence: { concurrent: false }
  }
})
