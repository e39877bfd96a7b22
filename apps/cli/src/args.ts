/** Command-line parsing for `radio-broadcaster` (node:util parseArgs, no dependencies). */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_SERVER, parseStationAddress } from './api.js';

export class UsageError extends Error {
  override name = 'UsageError';
}

/** The CLI's version (apps/cli/package.json; a test keeps them equal). */
export const CLI_VERSION = '0.1.0';

/** Exit codes: 0 done, 1 the command failed, 2 the command line was wrong, 130 interrupted twice. */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

export const USAGE = `Usage: radio-broadcaster <command> [options]

Commands:
  broadcast  Publish audio to a station over WHIP (a tone, an Ogg/Opus file or a WAV file)
  listen     Join a station over WHEP and report packets, loss, jitter, first-audio time
  load       Open many WHEP listeners at once (benchmark driver)

Common options:
  --station user/slug     the station (required)
  --server URL            API server (default $RB_SERVER or ${DEFAULT_SERVER})
  --duration SECONDS      stop after this long (default: until Ctrl-C; load: 30)
  --json                  print a final JSON summary line on stdout
  -h, --help              this help
  -v, --version           print the version

Exit codes: 0 done, 1 the command failed, 2 wrong command line, 130 stopped by a second Ctrl-C.

broadcast:
  --email E --password P  sign in and get a station token ($RB_EMAIL, $RB_PASSWORD)
  --token TOKEN           a station token instead ($RB_STATION_TOKEN)
  --tone HZ               send a generated sine tone (default 440 Hz when no --file)
  --amplitude A           tone amplitude 0..1 (default 0.5)
  --mono                  mono tone (default stereo)
  --file PATH             .ogg/.opus (Ogg/Opus) or .wav (PCM16, any rate, mono/stereo)
  --loop                  loop the file
  --record FILE.ndjson    record every sent packet (seq, ts, t, len, sha1)
  --record-hex            also record payloads as hex

listen:
  --whep-url URL [--token T]  POST straight to a WHEP URL instead of joining via the API
  --record FILE.ndjson    record every received packet
  --record-hex            also record payloads as hex
  --publisher-log FILE    the broadcaster's --record file: adds latency and byte-for-byte checks

load:
  --listeners N           how many listeners (required)
  --ramp PER_SECOND       joins started per second (default 10)
  --concurrency K         joins in flight at once (default 4)
  --duration SECONDS      how long to hold all listeners after the ramp (default 30)
  --publisher-log FILE    the broadcaster's --record file: adds latency p50/p95
`;

interface Common {
  server: string;
  station?: string;
  durationMs?: number;
  json: boolean;
}

export interface BroadcastArgs extends Common {
  command: 'broadcast';
  station: string;
  email?: string;
  password?: string;
  token?: string;
  tone?: number;
  amplitude: number;
  mono: boolean;
  file?: string;
  loop: boolean;
  record?: string;
  recordHex: boolean;
}

export interface ListenArgs extends Common {
  command: 'listen';
  whepUrl?: string;
  token?: string;
  record?: string;
  recordHex: boolean;
  publisherLog?: string;
}

export interface LoadArgs extends Common {
  command: 'load';
  station: string;
  listeners: number;
  ramp: number;
  concurrency: number;
  durationMs: number;
  publisherLog?: string;
}

export type CliArgs =
  BroadcastArgs | ListenArgs | LoadArgs | { command: 'help' } | { command: 'version' };

const common = {
  server: { type: 'string' },
  station: { type: 'string' },
  duration: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

const options = {
  broadcast: {
    ...common,
    email: { type: 'string' },
    password: { type: 'string' },
    token: { type: 'string' },
    tone: { type: 'string' },
    amplitude: { type: 'string' },
    mono: { type: 'boolean', default: false },
    file: { type: 'string' },
    loop: { type: 'boolean', default: false },
    record: { type: 'string' },
    'record-hex': { type: 'boolean', default: false },
  },
  listen: {
    ...common,
    'whep-url': { type: 'string' },
    token: { type: 'string' },
    record: { type: 'string' },
    'record-hex': { type: 'boolean', default: false },
    'publisher-log': { type: 'string' },
  },
  load: {
    ...common,
    listeners: { type: 'string' },
    ramp: { type: 'string' },
    concurrency: { type: 'string' },
    'publisher-log': { type: 'string' },
  },
} as const satisfies Record<string, ParseArgsConfig['options']>;

function num(
  name: string,
  raw: string | undefined,
  opts: { min?: number; max?: number; integer?: boolean; gt?: number } = {},
): number | undefined {
  if (raw === undefined) return undefined;
  const v = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(v))
    throw new UsageError(`--${name} must be a number, got "${raw}"`);
  if (opts.integer && !Number.isInteger(v))
    throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
  if (opts.gt !== undefined && !(v > opts.gt))
    throw new UsageError(`--${name} must be greater than ${opts.gt}, got "${raw}"`);
  if (opts.min !== undefined && v < opts.min)
    throw new UsageError(`--${name} must be at least ${opts.min}, got "${raw}"`);
  if (opts.max !== undefined && v > opts.max)
    throw new UsageError(`--${name} must be at most ${opts.max}, got "${raw}"`);
  return v;
}

function station(raw: string | undefined, required: boolean): string | undefined {
  if (raw === undefined) {
    if (required) throw new UsageError('--station user/slug is required');
    return undefined;
  }
  try {
    const { username, slug } = parseStationAddress(raw);
    return `${username}/${slug}`;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function server(raw: string | undefined, env: NodeJS.ProcessEnv): string {
  const s = raw ?? env.RB_SERVER ?? DEFAULT_SERVER;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new UsageError(`--server must be a URL such as ${DEFAULT_SERVER}, got "${s}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new UsageError(`--server must be http(s), got "${s}"`);
  return s.replace(/\/+$/, '');
}

/** Parses argv (without node and script) into a command; throws UsageError on bad input. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliArgs {
  const [command, ...rest] = argv;
  if (!command || command === '-h' || command === '--help' || command === 'help')
    return { command: 'help' };
  if (command === '-v' || command === '--version' || command === 'version')
    return { command: 'version' };
  if (!(command in options))
    throw new UsageError(`unknown command "${command}" (expected broadcast, listen or load)`);
  const cmd = command as keyof typeof options;
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({
      args: rest,
      options: options[cmd],
      strict: true,
      allowPositionals: false,
    });
    values = parsed.values as Record<string, string | boolean | undefined>;
  } catch (e) {
    throw new UsageError(
      `${cmd}: ${(e as Error).message.replace(/\. To specify a positional.*$/s, '')}`,
    );
  }
  if (values.help) return { command: 'help' };
  const str = (k: string) => values[k] as string | undefined;
  const bool = (k: string) => values[k] === true;
  const durationS = num('duration', str('duration'), { gt: 0 });
  const base: Common = {
    server: server(str('server'), env),
    durationMs: durationS === undefined ? undefined : durationS * 1000,
    json: bool('json'),
  };

  if (cmd === 'broadcast') {
    const token = str('token') ?? env.RB_STATION_TOKEN;
    const email = str('email') ?? env.RB_EMAIL;
    const password = str('password') ?? env.RB_PASSWORD;
    if (str('token') && (str('email') || str('password')))
      throw new UsageError('use either --token or --email/--password, not both');
    if (!token && !(email && password)) {
      throw new UsageError(
        'broadcast needs --email and --password, or --token (or RB_EMAIL/RB_PASSWORD, RB_STATION_TOKEN)',
      );
    }
    if (str('tone') !== undefined && str('file') !== undefined)
      throw new UsageError('use either --tone or --file, not both');
    const file = str('file');
    if (file !== undefined && !/\.(ogg|opus|oga|wav)$/i.test(file))
      throw new UsageError(`--file must be .ogg, .opus or .wav, got "${file}"`);
    return {
      ...base,
      command: 'broadcast',
      station: station(str('station'), true)!,
      token: str('token') ? token : email && password ? undefined : token,
      email: str('token') ? undefined : email,
      password: str('token') ? undefined : password,
      tone: file ? undefined : (num('tone', str('tone'), { gt: 0, max: 20000 }) ?? 440),
      amplitude: num('amplitude', str('amplitude'), { min: 0, max: 1 }) ?? 0.5,
      mono: bool('mono'),
      file,
      loop: bool('loop'),
      record: str('record'),
      recordHex: bool('record-hex'),
    };
  }
  if (cmd === 'listen') {
    const whepUrl = str('whep-url');
    if (whepUrl !== undefined) {
      try {
        new URL(whepUrl);
      } catch {
        throw new UsageError(`--whep-url must be an absolute URL, got "${whepUrl}"`);
      }
    }
    return {
      ...base,
      command: 'listen',
      station: station(str('station'), whepUrl === undefined),
      whepUrl,
      token: str('token'),
      record: str('record'),
      recordHex: bool('record-hex'),
      publisherLog: str('publisher-log'),
    };
  }
  const listeners = num('listeners', str('listeners'), { integer: true, min: 1, max: 100000 });
  if (listeners === undefined) throw new UsageError('load needs --listeners N');
  return {
    ...base,
    command: 'load',
    station: station(str('station'), true)!,
    listeners,
    ramp: num('ramp', str('ramp'), { gt: 0 }) ?? 10,
    concurrency: num('concurrency', str('concurrency'), { integer: true, min: 1 }) ?? 4,
    durationMs: base.durationMs ?? 30000,
    publisherLog: str('publisher-log'),
  };
}
