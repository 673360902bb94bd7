import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.tmp/**',
      'data/**',
      'src/adapters/inbound/graphql/playground/assets/**',
      // Built from the API document before the type check (npm run openapi:types).
      'test/support/openapi/portico.d.ts',
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
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The service reaches its drivers and Node through their public APIs only (ADR 26): no
    // deep imports into a package's files, no underscore members — a library's private state,
    // free to change in any release — no undocumented flag, and no stepping around an object's
    // own methods. knex's documented query-event field `__knexQueryUid`, which knex added for
    // telling queries apart in its events (knex/knex#1510), is the one exception.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                'knex/*',
                'pg/*',
                'pg-pool',
                'pg-pool/*',
                'pg-protocol',
                'pg-protocol/*',
                'libsql/*',
                'tarn',
                'tarn/*',
              ],
              message: 'Driver internals: use the package entry point (pg, libsql) or the ORM (@mikro-orm/*).',
            },
            { group: ['@mikro-orm/*/*'], message: 'MikroORM internals: import from the package entry point.' },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name=/^_/]:not([property.name='__knexQueryUid'])",
          message: 'An underscore member is private state of its library: use its public API.',
        },
        {
          selector: 'MemberExpression[computed=true][property.value=/^_/]',
          message: 'An underscore member is private state of its library: use its public API.',
        },
        {
          selector: "TSPropertySignature[key.name=/^_/]:not([key.name='__knexQueryUid'])",
          message: 'A type naming an underscore member reaches into private state: use the public API.',
        },
        {
          selector: "MemberExpression[property.name='shouldKeepAlive']",
          message: "Node's undocumented keep-alive flag: set the `Connection: close` header on the answer instead.",
        },
        {
          selector:
            "CallExpression[callee.property.name=/^(call|apply)$/][callee.object.object.property.name='prototype']",
          message: "A class's method applied to an object to skip the object's own: use the object's public API.",
        },
      ],
    },
  },
  {
    // The composition root stays a list of small steps and bindings (ARCHITECTURE rule 19): no
    // function in src/main runs past 80 lines (blank lines and comments not counted).
    files: ['src/main/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }] },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { globals: { module: 'writable', require: 'readonly', process: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
