import { access, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * Puts the threads of libuv's pool below the main thread in the CPU's queue (Linux; elsewhere it
 * does nothing). Returns how many threads it lowered, or null where it could not look.
 *
 * Every request is answered on the main thread; libuv's pool runs the password hashes (and file
 * reads, address lookups, image work). At equal priority, on one core, a login's argon2id hash
 * (about 10 ms there) took the core turn about with the main thread in slices of up to 4 ms, and
 * every request that came meanwhile waited: the peak mix at 800 req/s on one core gave p99
 * 17–62 ms for all but logins. With the pool at nice 10 (POOL_THREADS_NICE) the main
 * thread gets nine tenths of a core both want: 9–14 ms, logins 65–123 ms. A hash still has every
 * moment the main thread does not need, and with a core to spare nothing changes: nice only
 * orders threads that wait for the same core.
 *
 * V8's threads (background compiling, the collector's helpers) keep the main thread's priority:
 * the main thread waits for them inside a collection, and one of them preempted by another
 * process would hold it up.
 *
 * Linux keeps nice per thread (setpriority(2) given a thread id); a thread started by a pool
 * thread (libvips's, for skins) inherits it.
 */
export async function lowerPoolThreads(nice: number): Promise<number | null> {
  if (process.platform !== 'linux' || nice <= 0) return null;
  try {
    // libuv starts its pool at the first work queued to it: some, so that its threads exist.
    await access(process.execPath);
    let lowered = 0;
    for (const tid of await poolThreadIds()) {
      try {
        os.setPriority(tid, nice);
        lowered++;
      } catch {
        // A thread that ended meanwhile.
      }
    }
    return lowered;
  } catch {
    // No /proc (a sandbox without it).
    return null;
  }
}

/** Whatever libuv 1.50 and later (Node 22, 24) names its pool's threads. */
const POOL_NAME = 'libuv-worker';

async function poolThreadIds(): Promise<number[]> {
  const threads = await Promise.all(
    (await readdir('/proc/self/task')).map(async (name) => {
      const tid = Number(name);
      const stat = await readFile(`/proc/self/task/${name}/stat`, 'utf8');
      // stat: "tid (name) state …"; the name may hold spaces and parentheses, the fields after it
      // do not. Field 22, the thread's start time, is the 20th after the name.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return { tid, name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), started: Number(fields[19]) };
    }),
  );
  const named = threads.filter((t) => t.name === POOL_NAME);
  if (named.length) return named.map((t) => t.tid);
  // libuv 1.46 (Node 20) names no thread: its pool's are then the last ones the process started
  // under the executable's own name, since the pool starts at its first work, after V8's threads.
  const size = Math.max(1, Math.min(1024, Number(process.env.UV_THREADPOOL_SIZE) || 4));
  const unnamed = path.basename(process.execPath).slice(0, 15);
  return threads
    .filter((t) => t.tid !== process.pid && t.name === unnamed)
    .sort((a, b) => a.started - b.started || a.tid - b.tid)
    .slice(-size)
    .map((t) => t.tid);
}
