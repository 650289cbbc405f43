/** A workflow shaped like a checkout's first task: it starts a long timer and waits. */
import { proxySinks, sleep, type Sinks } from '@temporalio/workflow';

export interface FirstTaskSinks extends Sinks {
  firstTask: { done(): void };
}

const { firstTask } = proxySinks<FirstTaskSinks>();

export async function timerWorkflow(): Promise<void> {
  firstTask.done();
  await sleep('1 hour');
}
