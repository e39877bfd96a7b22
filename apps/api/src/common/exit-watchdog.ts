import { Worker } from 'node:worker_threads';

/**
 * Kills this process (SIGKILL) at `deadline` (epoch ms) from a thread of its own: whatever the main
 * thread is stuck in (a synchronous loop, a blocking write), the process is gone by then. The thread
 * holds nothing open; it ends with the process.
 */
export function killAt(deadline: number): void {
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     const ms = Math.max(0, workerData.deadline - Date.now());
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
     process.kill(workerData.pid, 'SIGKILL');`,
    { eval: true, workerData: { deadline, pid: process.pid } },
  );
  worker.unref();
}
