// ESLint: typescript-eslint's recommended rules, the type-aware promise rules (a forgotten await on a
// server loses errors and ordering), and the house rules that a formatter cannot express. Formatting
// itself is Prettier's (.prettierrc.json); import boundaries and cycles are dependency-cruiser's
// (.dependency-cruiser.cjs, `npm run lint:deps`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'src/web/assets/**',
      '**/*.min.js',
      'clients/typescript/src/flight-delay.ts',
      'clients/typescript/src/demo.ts',
      'clients/typescript/src/policy-admin.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, attributes: false } },
      ],
      '@typescript-eslint/await-thenable': 'error',
      // `typeof import('pg')` stays allowed: drivers are imported lazily, their types are not
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
      'max-len': [
        'error',
        { code: 160, ignoreUrls: true, ignoreRegExpLiterals: true, ignoreStrings: true, ignoreTemplateLiterals: true },
      ],
    },
  },
  {
    // tests, benchmarks and the CLI talk to a terminal
    files: ['test/**', 'bench/**', 'scripts/**', 'src/cli/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // tests read arbitrary JSON answers and OpenAPI documents
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', module: 'writable', require: 'readonly' },
    },
  },
);
