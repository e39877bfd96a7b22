/** Jest in native ESM mode: NestJS 12 packages are ESM-only. */
const tsJest = ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.test.json' }];
export default {
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
    '^@radiobroadcaster/sfu/werift-patches$': '<rootDir>/apps/sfu/src/werift/werift-patches.ts',
    '^@radiobroadcaster/sfu/nack$': '<rootDir>/apps/sfu/src/nack.ts',
  },
  testMatch: ['<rootDir>/{apps,libs,test}/**/*.(spec|test).ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 30000,
};
