/**
 * Jest in native ESM mode: NestJS 12 packages are ESM-only.
 *
 * Two projects, run by `npm test` (scripts/test.mjs) one after the other:
 * - `unit`: the specs beside the code (apps/**, libs/**): unit, service and HTTP specs, each file with
 *   its own database, so they run in parallel workers;
 * - `e2e`: test/**: built processes, browsers, coturn, icecast, clusters; run one file at a time.
 * `node --experimental-vm-modules node_modules/jest/bin/jest.js path/to/file` runs any one file.
 */
const tsJest = ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.test.json' }];
const shared = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': tsJest,
    '/node_modules/@nestjs/throttler/.+\\.js$': '<rootDir>/test/support/jest/esm-bridge.cjs',
  },
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/throttler/)'],
  setupFilesAfterEnv: ['<rootDir>/test/support/jest/esm-bridge-setup.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^@radiobroadcaster/(contracts|player|audio)$': '<rootDir>/libs/$1/src/index.ts',
    '^@radiobroadcaster/sfu$': '<rootDir>/apps/sfu/src/index.ts',
    '^@radiobroadcaster/sfu/client$': '<rootDir>/apps/sfu/src/client.ts',
    '^@radiobroadcaster/contracts/whip-client$': '<rootDir>/libs/contracts/src/whip-client.ts',
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};
export default {
  testTimeout: 30000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.(spec|test).ts'] },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.(spec|test).ts'] },
  ],
};
