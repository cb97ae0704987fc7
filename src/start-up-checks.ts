/**
 * What the configuration points at, checked before anything boots: the
 * devnet takes seconds to start, and a refusal that comes after it arrives
 * late and buried under its lines. DATA_DIR must be a directory this process
 * can write, HOST:PORT free to listen on, REDIS_URL answering. Each problem
 * is a ConfigError naming its variable, and each check is bounded in time,
 * so a hung file system or a silent network cannot hold start-up without a
 * word.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { ConfigError, type Config } from './config.js';

/**
 * Why this Node cannot run the service, or undefined when it can. Node 23 and
 * later are refused: the SQLite driver (better-sqlite3 12) aborts the whole
 * process under them once a statement is garbage-collected (Node 24's
 * ObjectWrap), and the driver that fixes it does not run on Node 20; see
 * docs/decisions/0049-a-lean-install.md.
 */
export function unsupportedNode(version: string): string | undefined {
  const major = Number(version.split('.')[0]);
  if (major >= 20 && major <= 22) return undefined;
  return `Node ${version} is not supported: use Node 22 LTS (or 20.19+)${major > 22 ? '; under Node 23 and later the SQLite driver, better-sqlite3 12, aborts the process' : ''}`;
}

/** The bound on each check. */
const CHECK_MS = 3000;

/**
 * Run every check at once and throw the first problem in the order of the
 * configuration (DATA_DIR, then HOST/PORT, then REDIS_URL).
 */
export async function checkStartup(config: Config): Promise<void> {
  const { dataDir, host, port } = config;
  const { redisUrl } = config.operations;
  const checks = [
    within(checkDataDir(dataDir), new ConfigError('DATA_DIR', `${dataDir} gave no answer within ${CHECK_MS} ms (a hung or unreachable file system?)`)),
    within(checkListen(host, port), new ConfigError('HOST', `${host} could not be listened on within ${CHECK_MS} ms (a name that does not resolve in time?)`)),
    ...(redisUrl !== undefined ? [within(checkRedis(redisUrl), new ConfigError('REDIS_URL', `gave no answer within ${CHECK_MS} ms`))] : []),
  ];
  for (const outcome of await Promise.allSettled(checks)) if (outcome.status === 'rejected') throw outcome.reason;
}

/** `work`, or `timeout` thrown once CHECK_MS have passed without it settling. */
function within(work: Promise<void>, timeout: ConfigError): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeout), CHECK_MS);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** "EACCES: permission denied", from a Node system error's message (without the path it repeats). */
function reason(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.split(', ')[0]!;
}

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * DATA_DIR exists or can be made, is a directory, and takes a new file.
 * Missing levels are made one at a time from the deepest one that exists:
 * mkdir's recursive mode never returns for a path under /proc.
 */
async function checkDataDir(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(at)).isDirectory();
    } catch (e) {
      if ((code(e) === 'ENOENT' || code(e) === 'ENOTDIR') && dirname(at) !== at) {
        missing.unshift(at);
        continue;
      }
      throw new ConfigError('DATA_DIR', `cannot reach ${at} (${reason(e)})`);
    }
    if (!isDirectory) throw new ConfigError('DATA_DIR', at === dir ? `${dir} is a file, not a directory` : `${dir} is under ${at}, which is a file, not a directory`);
    break;
  }
  for (const level of missing) {
    try {
      await mkdir(level);
    } catch (e) {
      if (code(e) !== 'EEXIST') throw new ConfigError('DATA_DIR', `cannot create ${level} (${reason(e)})`);
    }
  }
  const probe = join(dir, `.write-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await writeFile(probe, '', { flag: 'wx' });
  } catch (e) {
    throw new ConfigError('DATA_DIR', `${dir} is not writable (${reason(e)})`);
  }
  try {
    await unlink(probe);
  } catch (e) {
    throw new ConfigError('DATA_DIR', `${dir} lets a file be created but not removed (${reason(e)})`);
  }
}

/** Why HOST:PORT cannot be listened on, as the variable to change. */
export function listenRefusal(e: NodeJS.ErrnoException, host: string, port: number): ConfigError {
  switch (e.code) {
    case 'EADDRINUSE':
      return new ConfigError('PORT', `${host}:${port} is already in use`);
    case 'EACCES':
      return new ConfigError('PORT', `${host}:${port} needs privileges this process does not have (ports below 1024)`);
    case 'EADDRNOTAVAIL':
      return new ConfigError('HOST', `${host} is not an address of this machine`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return new ConfigError('HOST', `${host} does not resolve (${e.code})`);
    default:
      return new ConfigError('HOST', `cannot listen on ${host}:${port} (${reason(e)})`);
  }
}

/** Listen on HOST:PORT and close again (PORT=0 checks HOST alone). */
function checkListen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (e: NodeJS.ErrnoException) => reject(listenRefusal(e, host, port)));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** Connect to REDIS_URL and PING, without retrying. The URL may hold a password: only the error is told. */
async function checkRedis(url: string): Promise<void> {
  const { Redis } = await import('ioredis');
  let cause: string | undefined;
  const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: CHECK_MS, retryStrategy: () => null });
  // The socket's error says why ("connect ECONNREFUSED …"); connect() itself only rejects with "Connection is closed."
  redis.on('error', (e: Error) => (cause ??= e.message));
  try {
    await redis.connect();
    await redis.ping();
  } catch (e) {
    throw new ConfigError('REDIS_URL', `cannot connect: ${cause ?? reason(e)}`);
  } finally {
    redis.disconnect();
  }
}
