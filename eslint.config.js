// Lint rules: typescript-eslint's recommended set, type-aware promise checks, and the house rules of
// docs/conventions.md. Import boundaries and cycles are checked by dependency-cruiser (.dependency-cruiser.cjs).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/',
      '.herald/',
      'dashboard/dist/',
      // The dashboard's build output (scripts/build-web.ts).
      'web/dist/',
      'test/.tmp/',
      // The client package's build output and its generated types (clients/typescript/scripts/generate.ts).
      'clients/typescript/dist/',
      'clients/typescript/src/schema.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      'no-undef': 'off', // TypeScript checks names
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Only src/config.ts reads process.env.',
        },
        { selector: 'TSEnumDeclaration', message: 'Enums are not erasable syntax; use a union of literals.' },
      ],
    },
  },
  {
    // A promise nobody awaits loses its error: type-aware, so it sees through every call's return type.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test's test() and describe() return promises the runner itself tracks.
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    files: [
      'src/config.ts',
      'test/**',
      'bench/**',
      'scripts/**',
      'bin/**',
      '**/*.test.ts',
      'clients/typescript/scripts/**',
      'clients/typescript/test/**',
      // The herald-client command's entry: its one reader of the environment.
      'clients/typescript/src/cli/main.ts',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
