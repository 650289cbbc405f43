import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (user + system) so far of a process (`/proc/<pid>/stat`) or a thread (`/proc/<pid>/task/<tid>/stat`). */
export function statCpuSeconds(statPath: string): number {
  const fields = readFileSync(statPath, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** CPU seconds per thread of a process, keyed by thread id, with the thread's name. */
export function threadCpu(pid: number): Map<string, { name: string; seconds: number }> {
  const threads = new Map<string, { name: string; seconds: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      threads.set(tid, { name, seconds: statCpuSeconds(`/proc/${pid}/task/${tid}/stat`) });
    } catch {
      // the thread ended between listing and reading
    }
  }
  return threads;
}
