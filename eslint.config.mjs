import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', '.bench/', 'data/', 'coverage/', 'test-artifacts/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        performance: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' },
      ],
    },
  },
  {
    // The dashboard's own scripts: ES modules run by the browser, with no build step.
    files: ['src/dashboard/assets/js/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'navigator',
          'location',
          'history',
          'sessionStorage',
          'fetch',
          'Headers',
          'URL',
          'URLSearchParams',
          'Blob',
          'Intl',
          'Event',
          'KeyboardEvent',
          'HTMLElement',
          'Node',
          'requestAnimationFrame',
          'setTimeout',
          'clearTimeout',
          'queueMicrotask',
          'console',
        ].map((name) => [name, 'readonly']),
      ),
    },
    rules: { 'no-console': 'error' },
  },
);
