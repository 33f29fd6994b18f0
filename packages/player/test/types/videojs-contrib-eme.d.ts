// videojs-contrib-eme ships no types: the members the tests use.
declare module 'videojs-contrib-eme' {
  const eme: unknown;
  export default eme;
  /** The plugin's handler of an `encrypted` event: key system access, session, getLicense, update. */
  export function handleEncryptedEvent(
    player: unknown,
    event: { initDataType: string; initData: Uint8Array; target: unknown },
    options: unknown,
    sessions: unknown[],
    eventBus: unknown,
    emeError: (error: unknown, metadata?: unknown) => void,
  ): Promise<void>;
  export function emeErrorHandler(player: unknown): (error: unknown, metadata?: unknown) => void;
  export function getOptions(player: unknown): Record<string, unknown>;
}
