import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (user + system) so far of a process (`/proc/<pid>/stat`) or a thread (`/proc/<pid>/task/<tid>/stat`). */
export function statCpuSeconds(statPath: string): number {
  return parseStat(readFileSync(statPath, 'utf8')).seconds;
}

/** The name and CPU seconds of one `stat` line; the name is between the first "(" and the last ")". */
function parseStat(stat: string): { name: string; seconds: number } {
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  // utime and stime (fields 14 and 15 of the line) in clock ticks (USER_HZ = 100)
  return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), seconds: (Number(fields[11]) + Number(fields[12])) / 100 };
}

/** CPU seconds per thread of a process, keyed by thread id, with the thread's name. */
export function threadCpu(pid: number): Map<string, { name: string; seconds: number }> {
  const threads = new Map<string, { name: string; seconds: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.set(tid, parseStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
    } catch {
      // the thread ended between listing and reading
    }
  }
  return threads;
}

/** Busy CPU seconds of the whole machine so far (`/proc/stat`: everything but idle and iowait). */
export function machineBusySeconds(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / 100;
}

/** Where a benchmark's CPU goes: the processes it knows by id, and the rest by name. `background`: the background worker, where the layout has one. */
export type CpuGroup = 'api' | 'worker' | 'background' | 'floor' | 'temporal' | 'postgres' | 'load' | 'other';
export const CPU_GROUPS: CpuGroup[] = ['api', 'worker', 'background', 'floor', 'temporal', 'postgres', 'load', 'other'];

/**
 * CPU seconds so far of every process, summed by group: the API, worker and floor server by
 * process id, Temporal's server and PostgreSQL by process name, this process as the load, and
 * `other` as the machine's busy time left over (other processes, interrupts, processes that ended).
 */
export function cpuByGroup(pids: { api: number; worker: number; background?: number; floor?: number }): Record<CpuGroup, number> {
  const groups = Object.fromEntries(CPU_GROUPS.map((g) => [g, 0])) as Record<CpuGroup, number>;
  const known = new Map<number, CpuGroup>([[pids.api, 'api'], [pids.worker, 'worker'], [process.pid, 'load']]);
  if (pids.background) known.set(pids.background, 'background');
  if (pids.floor) known.set(pids.floor, 'floor');
  let counted = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { name, seconds } = parseStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      const group = known.get(Number(entry)) ?? (name === 'postgres' ? 'postgres' : isTemporal(entry, name) ? 'temporal' : undefined);
      if (!group) continue;
      groups[group] += seconds;
      counted += seconds;
    } catch {
      // the process ended between listing and reading
    }
  }
  groups.other = machineBusySeconds() - counted;
  return groups;
}

/** The CLI's dev server (`temporal`), or Temporal's own server as `go install` names it (`server`). */
function isTemporal(pid: string, name: string): boolean {
  return name === 'temporal' || (name === 'server' && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('temporal'));
}

/** The difference of two `cpuByGroup` samples. */
export function cpuSince(before: Record<CpuGroup, number>, after: Record<CpuGroup, number>): Record<CpuGroup, number> {
  return Object.fromEntries(CPU_GROUPS.map((g) => [g, after[g] - before[g]])) as Record<CpuGroup, number>;
}
