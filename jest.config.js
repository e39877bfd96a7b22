/**
 * Jest in native ESM mode: NestJS 12 packages are ESM-only.
 *
 * Two projects, run by `npm test` (scripts/test.mjs, which says in which runs and workers):
 * - `unit`: the specs beside the code (apps/**, libs/**): unit, service and HTTP specs, each file with
 *   its own database, so they run in parallel workers;
 * - `e2e`: test/**: built processes, browsers, coturn, icecast, clusters. `npm test` runs it in two
 *   parts: the files that share nothing with each other (each has its own ports, database, temporary
 *   directories and Chromium) in parallel workers beside the unit specs, then {@link E2E_SERIAL}
 *   (`RB_E2E_SET=parallel|serial|serial-beside|serial-alone` selects a part; unset: all).
 *   `RB_UNIT_SET=parallel|beside-serial|oldest-node` selects a part of `unit` ({@link UNIT_BESIDE_SERIAL},
 *   {@link OLDEST_NODE_SPECS}).
 * `node --experimental-vm-modules node_modules/jest/bin/jest.js path/to/file` runs any one file.
 */
// The SFU engine of every process a test starts, unless the test names another: werift. The
// engine-specific suites (apps/sfu/src/engine-contract.spec.ts, ...) name theirs.
process.env.MEDIA_ENGINE ??= 'werift';
/**
 * TypeScript: swc (@swc/jest), types stripped file by file (`npm run check` checks them first): 7× faster
 * than ts-jest on a fresh clone's cold cache (docs/testing.md). Decorator metadata as tsc writes it, for
 * NestJS's injection and @nestjs/swagger (handlers take `Parsed<typeof Schema>`, apps/api/src/common/
 * zod.pipe.ts, so both write the same OpenAPI document). RB_JEST_TRANSFORM=ts-jest uses ts-jest.
 */
const swc = [
  '@swc/jest',
  {
    swcrc: false,
    sourceMaps: 'inline',
    jsc: {
      target: 'es2023',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
      keepClassNames: true,
    },
  },
];
const tsJest = ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.test.json' }];
const shared = {
  testEnvironment: 'node',
  // Jest's runtime with V8's code cache shared across a worker's files (test/support/jest/code-cache.cjs)
  runtime: '<rootDir>/test/support/jest/runtime.cjs',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': process.env.RB_JEST_TRANSFORM === 'ts-jest' ? tsJest : swc,
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
/**
 * e2e files that do not share the machine with the parallel run: network namespaces, nftables and
 * coturn relays (test/net), the files that time failover, drain and shutdown against grace windows,
 * or count one-port consent checks, and the files that hold the product to a latency of 2 s or less
 * (a second MP3 listener's first bytes within 1 s, now playing and the live state at the listener
 * within 2 s), which three heavy files beside them on 2 cores would make flaky. One file at a time,
 * after the parallel run (`npm test`: scripts/test.mjs). With RB_TEST_SERIAL_BESIDE=1, in two sets:
 * - `E2E_SERIAL_BESIDE` (`RB_E2E_SET=serial-beside`), beside the parallel run, whose session gets
 *   less of the CPU than theirs (they mostly wait: about a third of the 2 cores);
 * - `E2E_SERIAL_ALONE` (`RB_E2E_SET=serial-alone`), alone after it: the files of test/net, which
 *   change the host's network (veth pairs with the host's end addressed, nftables tables: every
 *   Chromium and WebRTC peer on the machine sees interfaces and addresses come and go; beside them, a
 *   parallel file's pages stayed blank and a CLI listener's WebRTC timed out), and cluster, whose ten
 *   relayed listeners must get 99 % of the packets (beside the parallel run one got 97 %).
 * `RB_E2E_SET=serial` selects both (docs/testing.md).
 */
export const E2E_SERIAL_ALONE = [
  '/test/net/.+\\.(spec|test)\\.ts$',
  '/test/e2e/cluster\\.test\\.ts$',
];
export const E2E_SERIAL_BESIDE = [
  '/test/browser/(one-port-consent|ice-tcp|web-listen|web-studio)\\.test\\.ts$',
  '/test/e2e/(crash-recovery|sfu-drain|shutdown|http-listen)\\.test\\.ts$',
];
export const E2E_SERIAL = [...E2E_SERIAL_ALONE, ...E2E_SERIAL_BESIDE];
/**
 * Unit specs that `npm test` runs beside the serial files (E2E_SERIAL, or E2E_SERIAL_ALONE with
 * RB_TEST_SERIAL_BESIDE=1) instead of in the parallel run, at the lowest priority
 * (`RB_UNIT_SET=beside-serial` selects them, `RB_UNIT_SET=parallel` the rest): the serial files mostly
 * wait on networks and timers and leave the 2 cores idle for minutes, while the parallel run is
 * short of CPU. These are API specs that open no WebRTC peer and no browser (what test/net's
 * network changes would disturb, see above), only HTTP, socket.io, PostgreSQL and Redis on loopback,
 * and among the ones that cost the most CPU or wait longest (chat-nodes runs three API processes).
 */
export const UNIT_BESIDE_SERIAL = [
  '/apps/api/src/chat/(chat-nodes|chat-room-rate|chat)\\.spec\\.ts$',
  '/apps/api/src/(webhooks/webhooks|follow/follow|follow/push|relays/relays)\\.spec\\.ts$',
  '/apps/api/src/auth/(sign-up-limits|auth-rate-limit|auth)\\.spec\\.ts$',
  '/apps/api/src/(recordings/recordings-s3|radio/listen-access|shows/shows)\\.spec\\.ts$',
];
/**
 * The fast specs that run again on the oldest supported Node (22; `.ci/run` names its binary in
 * RB_TEST_OLDEST_NODE and `npm test` runs them beside the serial files, `RB_UNIT_SET=oldest-node`):
 * what depends on the Node version. The SFU's boundary (every werift and Node-internal reach-in, the
 * fast paths asserted active: werift-contract), the ICE/TCP mux and SDP, NACK, the libraries, the
 * CLI's audio, and the API's specs that need no database. The engine, shard, SFU-node and
 * engine-contract specs drive werift through that boundary and public Node APIs only, and the
 * player's two type specs run tsc: they run once, on the newest (docs/testing.md).
 */
export const OLDEST_NODE_SPECS = [
  '/libs/(?!player/src/(react-jsx|types)\\.spec\\.ts$).+\\.spec\\.ts$',
  '/apps/sfu/src/(boundary|net)/.+\\.spec\\.ts$',
  '/apps/sfu/src/(sdp|werift/nack|werift/gate)\\.spec\\.ts$',
  '/apps/cli/src/audio\\.spec\\.ts$',
  '/apps/api/src/(config|turn)/.+\\.spec\\.ts$',
  '/apps/api/src/(stats/stats-math|domains/domain-rules)\\.spec\\.ts$',
];
const unitSet = process.env.RB_UNIT_SET;
const unitFiles =
  unitSet === 'beside-serial' || unitSet === 'oldest-node'
    ? { testRegex: unitSet === 'oldest-node' ? OLDEST_NODE_SPECS : UNIT_BESIDE_SERIAL }
    : {
        testMatch: ['<rootDir>/{apps,libs}/**/*.(spec|test).ts'],
        ...(unitSet === 'parallel'
          ? { testPathIgnorePatterns: [...shared.testPathIgnorePatterns, ...UNIT_BESIDE_SERIAL] }
          : {}),
      };
const e2eSet = process.env.RB_E2E_SET;
const serialSets = {
  serial: E2E_SERIAL,
  'serial-alone': E2E_SERIAL_ALONE,
  'serial-beside': E2E_SERIAL_BESIDE,
};
const e2eFiles =
  e2eSet && e2eSet in serialSets
    ? { testRegex: serialSets[e2eSet] }
    : {
        testMatch: ['<rootDir>/test/**/*.(spec|test).ts'],
        ...(e2eSet === 'parallel'
          ? { testPathIgnorePatterns: [...shared.testPathIgnorePatterns, ...E2E_SERIAL] }
          : {}),
      };
export default {
  testTimeout: 30000,
  testSequencer: '<rootDir>/test/support/jest/sequencer.mjs',
  projects: [
    { ...shared, displayName: 'unit', ...unitFiles },
    {
      ...shared,
      displayName: 'e2e',
      setupFilesAfterEnv: [
        ...shared.setupFilesAfterEnv,
        '<rootDir>/test/support/jest/e2e-timeout.ts',
      ],
      ...e2eFiles,
    },
  ],
};
