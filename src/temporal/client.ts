import { Client, Connection } from '@temporalio/client';

/** One Temporal client per process, created at start-up and injected where it is needed. */
export async function createTemporalClient(address: string, namespace: string): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace });
}
