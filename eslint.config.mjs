import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '**/dist/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      'bench/peers/**',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      'no-console': 'off',
    },
  },
  {
    // Nest's DI reads constructor parameter types at runtime: a type-only import there would erase them.
    files: [
      'apps/**/*.ts',
      'libs/application/src/**/*.ts',
      'libs/**/*.module.ts',
      'libs/**/*.controller.ts',
      'libs/**/*.handler.ts',
      'libs/**/*.service.ts',
      'libs/**/*.provider.ts',
    ],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
  {
    // Storage lives with storage (libs/projections, libs/event-store): the application layer
    // reaches SQLite and Redis only through their ports and factories.
    files: ['libs/application/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'better-sqlite3',
              message: 'SQLite belongs behind a port in libs/projections.',
            },
            { name: 'redis', message: 'Redis belongs behind a port in libs/projections.' },
          ],
          patterns: [
            { group: ['@redis/*'], message: 'Redis belongs behind a port in libs/projections.' },
          ],
        },
      ],
    },
  },
);
