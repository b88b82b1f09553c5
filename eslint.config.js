// One lint config for the whole monorepo (house style: no config packages at this size).
// Type-aware: promise mistakes (a floating or misused promise) are errors, because the store's
// guarantees depend on every write being awaited.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/test-results/**',
      '**/playwright-report/**',
      'bench/results/**',
      'tools/**',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Off on purpose: an async method without await (a Client's execute on a synchronous
      // driver, a test double) turns a throw into a rejection, which is what callers await.
      '@typescript-eslint/require-await': 'off',
      // libSQL types every cell as string | number | bigint | ArrayBuffer | null; String(row.col)
      // on a TEXT column is the mapping at the edge, never an ArrayBuffer.
      '@typescript-eslint/no-base-to-string': [
        'error',
        { ignoredTypeNames: ['ArrayBuffer', 'Error', 'RegExp', 'URL', 'URLSearchParams'] },
      ],
    },
  },
  {
    // Tests poke at raw JSON answers and rows on purpose; the promise rules still apply.
    files: ['**/*.test.ts', '**/*.test.tsx', '**/testing/**', 'e2e/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
  { files: ['apps/web/**/*.{ts,tsx}'], ...reactHooks.configs.flat.recommended },
  {
    // The hosted runtime never loads the store or a database driver (SPEC §2). Of Oh it takes the
    // Retry-After parser of @oh/embeddings, the one reading of that header in the project.
    files: ['packages/agent/src/**/*.ts'],
    ignores: ['packages/agent/src/**/*.test.ts', 'packages/agent/src/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^@oh/memory', message: 'The runtime never loads the store.' },
            { regex: '^@libsql/', message: 'The runtime never loads a database driver.' },
          ],
        },
      ],
    },
  },
);
