/** Jest in native ESM mode: NestJS 12 packages are ESM-only. */
const tsJest = ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.test.json' }];
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': tsJest },
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^@radiobroadcaster/(contracts|player)$': '<rootDir>/libs/$1/src/index.ts',
    '^@radiobroadcaster/sfu$': '<rootDir>/apps/sfu/src/index.ts',
    '^@radiobroadcaster/sfu/(.*)$': '<rootDir>/apps/sfu/src/$1.ts',
  },
  testMatch: ['<rootDir>/{apps,libs,test}/**/*.(spec|test).ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 30000,
};
