// shaka-player ships one global-namespace declaration file whose default export is the `shaka`
// namespace. Under NodeNext resolution the package is CommonJS, so the namespace is reached through
// the module's `default` member. Only types are imported: at run time this package talks to the
// player instance it is given and never loads shaka-player itself, so it works with any shaka build
// (compiled, UI, DASH-only) the app chose.
import type * as ShakaModule from 'shaka-player';

export type Player = ShakaModule.default.Player;
export type Storage = ShakaModule.default.offline.Storage;
export type DrmSessionMetadata = ShakaModule.default.extern.DrmSessionMetadata;
export type DrmConfiguration = ShakaModule.default.extern.DrmConfiguration;
export type ShakaRequest = ShakaModule.default.extern.Request;
export type ShakaResponse = ShakaModule.default.extern.Response;
export type RequestContext = ShakaModule.default.extern.RequestContext;
export type DrmInfo = ShakaModule.default.extern.DrmInfo;
export type NetworkingEngine = ShakaModule.default.net.NetworkingEngine;
export type ShakaError = ShakaModule.default.util.Error;
export type RequestFilter = ShakaModule.default.extern.RequestFilter;
export type ResponseFilter = ShakaModule.default.extern.ResponseFilter;
export type InitDataTransform = ShakaModule.default.extern.InitDataTransform;

/** `shaka.net.NetworkingEngine.RequestType` values this package reacts to (stable across 4.x and 5.x). */
export const LICENSE = 2;
export const SERVER_CERTIFICATE = 5;
export const RequestType = { LICENSE, SERVER_CERTIFICATE } as const;
