import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'web/src/routeTree.gen.ts',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        // Build configs first, then the test config that covers *.spec.ts, testing helpers and test/.
        project: [
          'libs/contracts/tsconfig.json',
          'libs/audio/tsconfig.json',
          'apps/sfu/tsconfig.json',
          'apps/api/tsconfig.json',
          'apps/cli/tsconfig.json',
          'libs/player/tsconfig.json',
          'web/tsconfig.json',
          'tsconfig.test.json',
        ],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // The werift + Node-internals boundary (apps/sfu/src/boundary): the only code that imports werift (or
    // its tweetnacl) and the only code that reaches into Node's internals. Everything else goes through it:
    // the SFU through boundary/werift.js, clients and tests through @radiobroadcaster/sfu/client.
    files: ['**/*.ts', '**/*.tsx'],
    ignores: ['apps/sfu/src/boundary/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'werift',
              message:
                'werift is reached through the boundary: apps/sfu/src/boundary/werift.js inside the SFU, @radiobroadcaster/sfu/client elsewhere.',
            },
            { name: 'tweetnacl', message: "tweetnacl is werift's; only the boundary patches it." },
          ],
          patterns: [
            { group: ['werift/*'], message: 'werift is reached through the boundary only.' },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.property.name=/^(binding|_linkedBinding)$/][arguments.0.type='Literal']",
          message: "Node's internal bindings are used by apps/sfu/src/boundary only.",
        },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'binding',
          message: "Node's internal bindings are used by apps/sfu/src/boundary only.",
        },
        {
          object: 'process',
          property: '_linkedBinding',
          message: "Node's internal bindings are used by apps/sfu/src/boundary only.",
        },
      ],
    },
  },
);
