// Lint rules: typescript-eslint's recommended set plus the house rules of ARCHITECTURE.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.herald/', 'dashboard/dist/', 'test/.tmp/'] },
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
    files: ['src/config.ts', 'test/**', 'bench/**', 'scripts/**', 'bin/**', '**/*.test.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
