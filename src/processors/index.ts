// The processor layer's public surface; callers import from here, not from the files behind it.
export * from './types';
export { cardBrand, cardExpired, checkInstrument, luhnValid, numberKey, savedCardExpired, type CheckedInstrument } from './instruments';
export {
  FAILURE_MESSAGES,
  SANDBOX_AUTO_REFUND_AMOUNT_CENTS,
  SANDBOX_TEST_CARDS,
  createSandboxProcessor,
  getProcessor,
  isProcessorName,
  type FailureCode,
  type ProcessorName,
  type SandboxOptions,
} from './sandbox';
export { ConnectorNotConfigured, connectorFor, type ConnectorCredentials, type ConnectorOptions } from './connectors';
export { ProcessorUnavailable } from './types';
