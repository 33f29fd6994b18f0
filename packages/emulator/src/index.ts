// @multidrm/emulator: a local stand-in for the multi-DRM license service.
export { startEmulator, type StartOptions, type RunningEmulator } from './server.ts';
export {
  createEmulatorHandler,
  type EmulatorHandler,
  type EmulatorHandlerOptions,
} from './handler.ts';
export {
  emulatorConfigSchema,
  parseConfig,
  loadConfigFile,
  ConfigError,
  type EmulatorConfig,
  type EmulatorConfigInput,
  type SiteConfig,
  type ContentKey,
} from './config.ts';
export { ERROR_CODES, EmulatorError, type EmulatorErrorCode, type ErrorBody } from './errors.ts';
export { FlowEvents, type FlowEvent, type FlowEventType } from './events.ts';
export { type ClearKeyLicense } from './clearkey-license.ts';
export { type ClearKeyRequest } from './license-request.ts';
export { type EffectivePolicy } from './policy.ts';
