import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Type tests (expectTypeOf, @ts-expect-error): checked by `npm run typecheck`, or `vitest --typecheck.only`.
    typecheck: { include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: keep process-heavy suites from starving each other.
    maxWorkers: 2,
  },
});
