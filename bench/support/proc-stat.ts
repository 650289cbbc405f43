import { readFileSync } from 'node:fs';

/** CPU seconds (user + system) so far of a process (`/proc/<pid>/stat`) or a thread (`/proc/<pid>/task/<tid>/stat`). */
export function statCpuSeconds(statPath: string): number {
  const fields = readFileSync(statPath, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}
