import { access, readdir } from 'node:fs/promises';
import os from 'node:os';

/**
 * Puts the process's helper threads below its main thread in the CPU's queue (Linux; elsewhere it
 * does nothing and says so). Returns how many threads it lowered, or null where it could not.
 *
 * Every request is answered on the main thread. The helpers are libuv's pool (password hashes,
 * file reads, image work, address lookups) and V8's (compiling in the background, concurrent GC).
 * At equal priority, on one core, a login's argon2id hash (about 10 ms there) shared the core
 * turn about with the main thread in slices of up to 4 ms, and every request that came meanwhile
 * waited: the peak mix at 800 req/s on one core gave p99 17–62 ms for all but logins (issue 29).
 * With the helpers at nice 10 (HELPER_THREADS_NICE) the main thread gets nine tenths of a core they
 * share: 6–7 ms, and logins 47–78 ms; at 19, a sixtieth, logins took up to 241 ms. A hash still
 * gets every moment the main thread does not need; with spare cores nothing changes, nice only
 * orders threads that wait for the same core.
 *
 * Linux keeps nice per thread (setpriority(2) given a thread id), and a thread inherits its
 * creator's: so the threads a helper starts later (libvips's, for skins) are low too.
 */
export async function lowerHelperThreads(nice: number): Promise<number | null> {
  if (process.platform !== 'linux' || nice <= 0) return null;
  try {
    // libuv starts its pool at the first work queued to it: some, so that its threads exist.
    await access(process.execPath);
    let lowered = 0;
    for (const name of await readdir('/proc/self/task')) {
      const tid = Number(name);
      if (tid === process.pid) continue;
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
