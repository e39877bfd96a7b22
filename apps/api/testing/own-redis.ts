/** A Redis server of a test's own (not the shared one), so the test can stop and start it again. */
import { type ChildProcess, spawn } from 'node:child_process';

export class OwnRedis {
  private child: ChildProcess | null = null;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start:\n${out}`)),
        15_000,
      );
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (/Ready to accept connections/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${out}`));
      });
    });
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
