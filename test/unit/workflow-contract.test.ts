import * as registered from '../../workflows';
import { WORKFLOWS } from '../../workflows/contract';

describe('the Temporal contract', () => {
  it('names only workflows the worker registers', () => {
    for (const { workflowType } of Object.values(WORKFLOWS)) expect([workflowType, typeof registered[workflowType]]).toEqual([workflowType, 'function']);
  });
});
