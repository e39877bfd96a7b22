import tseslint from 'typescript-eslint';

/** werift (and its tweetnacl) are imported by apps/sfu/src/boundary only. */
const WERIFT_PATHS = [
  {
    name: 'werift',
    message:
      'werift is reached through the boundary: apps/sfu/src/boundary/werift.js inside the SFU, @radiobroadcaster/sfu/client elsewhere.',
  },
  { name: 'tweetnacl', message: "tweetnacl is werift's; only the boundary patches it." },
];
const WERIFT_PATTERNS = [
  { group: ['werift/*'], message: 'werift is reached through the boundary only.' },
];

/**
 * The floors of the house: a workspace imports only workspaces on floors below it (through their
 * public entry points, which scripts/check-deps.mjs checks), never one beside or above it.
 *   1  libs/contracts, libs/audio
 *   2  apps/sfu, libs/player
 *   3  apps/api, apps/cli, web
 */
const WORKSPACES = ['contracts', 'audio', 'sfu', 'player', 'api', 'cli', 'web'];
const MAY_IMPORT = {
  'libs/contracts': [],
  'libs/audio': [],
  'apps/sfu': ['audio', 'contracts'],
  'libs/player': ['contracts'],
  'apps/api': ['audio', 'contracts', 'sfu'],
  'apps/cli': ['audio', 'contracts', 'sfu'],
  web: ['contracts', 'player'],
};

/**
 * Inside the SFU, from the ground up: boundary (werift and Node internals), net and protocol, werift/
 * (the engine), node/ (a standalone SFU node); remote/ is the API's engine over remote SFU nodes. Specs may
 * cross (a node spec drives a ClusterEngine).
 */
const SFU_NEVER = {
  boundary: ['node', 'remote', 'protocol'],
  net: ['werift', 'node', 'remote'],
  protocol: ['werift', 'node', 'remote', 'boundary'],
  werift: ['node', 'remote', 'protocol'],
  node: ['remote'],
  remote: ['werift', 'node', 'boundary', 'net'],
};

/** One no-restricted-imports block (ESLint replaces, not merges, a rule's options per file). */
function restrictImports(files, ignores, patterns, werift = true) {
  return {
    files,
    ignores,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: werift ? WERIFT_PATHS : [],
          patterns: [...(werift ? WERIFT_PATTERNS : []), ...patterns],
        },
      ],
    },
  };
}

/** What `dir` may not import of the other workspaces. */
function upward(dir) {
  const may = MAY_IMPORT[dir];
  const others = WORKSPACES.filter((w) => !may.includes(w) && !dir.endsWith(w));
  return {
    group: others.flatMap((w) => [`@radiobroadcaster/${w}`, `@radiobroadcaster/${w}/*`]),
    message: `${dir} imports only the workspaces below it (${may.join(', ') || 'none'}): nothing imports upward or sideways.`,
  };
}

const layering = [
  ...Object.keys(MAY_IMPORT).map((dir) =>
    restrictImports(
      [`${dir}/**/*.ts`, `${dir}/**/*.tsx`],
      dir === 'apps/sfu' ? ['apps/sfu/src/boundary/**'] : [],
      [upward(dir)],
    ),
  ),
  ...Object.entries(SFU_NEVER).map(([dir, never]) =>
    restrictImports(
      [`apps/sfu/src/${dir}/**/*.ts`],
      ['**/*.spec.ts'],
      [
        upward('apps/sfu'),
        {
          group: never.map((d) => `../${d}/*`),
          message: `apps/sfu/src/${dir} does not import ${never.join(', ')} (SFU_NEVER in eslint.config.js).`,
        },
      ],
      dir !== 'boundary',
    ),
  ),
  restrictImports(['apps/sfu/src/boundary/**/*.spec.ts'], [], [upward('apps/sfu')], false),
];

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
      'no-restricted-imports': ['error', { paths: WERIFT_PATHS, patterns: WERIFT_PATTERNS }],
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
  ...layering,
);
