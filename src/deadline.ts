/**
 * What `work` settles to, or `late` once `ms` have passed (the work itself goes on; `work` must
 * not reject). For probes and scrapes, which must answer while a dependency hangs.
 */
export function withinDeadline<T>(work: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
