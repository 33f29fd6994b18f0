// @multidrm/emulator/msw: the emulator as msw request handlers, for a site's own test suites, in
// msw/node (vitest, jsdom, happy-dom) and msw/browser (a service worker in a real page) alike.
export {
  licenseServiceHandlers,
  DEFAULT_LICENSE_BASE_URL,
  type LicenseServiceHandlers,
  type LicenseServiceOptions,
} from './license-service-handlers.ts';
export {
  siteHandlers,
  DEFAULT_SITE_BASE_URL,
  type SiteHandlers,
  type SiteHandlersOptions,
} from './site-handlers.ts';
export { proxyHandlers, type ProxyHandlers, type ProxyHandlersOptions } from './proxy-handlers.ts';
export {
  faultSchema,
  FAULT_NAMES,
  type Fault,
  type FaultInput,
  type FaultName,
} from '../faults/fault-schema.ts';
export { FaultPlan, parseFaults, type ActiveFault } from '../faults/fault-plan.ts';
export { ConfigError, type EmulatorConfig, type EmulatorConfigInput } from '../config.ts';
export { FlowEvents, type DroppedEvents, type FlowEvent } from '../events.ts';
export { LICENSE_PATHS } from '../handler.ts';
export { CERTIFICATE_PATHS } from '../certificates.ts';
