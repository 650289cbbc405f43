// The service signs with the very module merchants verify with: the SDK's (sdk/src/signature.ts).
export * from '../../sdk/src/signature';
