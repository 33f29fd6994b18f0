// @multidrm/emulator: a local stand-in for the multi-DRM license service.
export { startEmulator, type StartOptions, type RunningEmulator } from './server.ts';
export {
  createEmulatorHandler,
  LICENSE_PATHS,
  type EmulatorHandler,
  type EmulatorHandlerOptions,
} from './handler.ts';
export type { EventStreamLimits } from './http/sse.ts';
export { STREAM_ID_HEADER, STREAM_ID_QUERY } from './stream-id.ts';
export {
  emulatorConfigSchema,
  parseConfig,
  ConfigError,
  DIALECTS,
  type Dialect,
  type EmulatorConfig,
  type EmulatorConfigInput,
  type SiteConfig,
  type ContentKey,
} from './config.ts';
export { loadConfigFile } from './config-file.ts';
export {
  ERROR_CODES,
  REFUSAL_REASONS,
  EmulatorError,
  type EmulatorErrorCode,
  type RefusalReason,
  type ErrorBody,
  type ServiceRefusalBody,
} from './errors.ts';
export {
  FlowEvents,
  type DroppedEvents,
  type FlowEvent,
  type FlowEventType,
  type FlowEventsOptions,
} from './events.ts';
export {
  faultSchema,
  FAULT_NAMES,
  type Fault,
  type FaultInput,
  type FaultName,
} from './faults/fault-schema.ts';
export { FaultPlan, parseFaults, type ActiveFault, type FaultStage } from './faults/fault-plan.ts';
export { type ClearKeyLicense } from './clearkey-license.ts';
export { type ClearKeyRequest } from './license-request.ts';
export { type DeviceInfo, type JsonLicenseAnswer } from './license-answer.ts';
export { type EffectivePolicy } from './policy.ts';
export { CERTIFICATE_PATHS } from './certificates.ts';
export { STAND_IN_MARK } from './stand-in.ts';
