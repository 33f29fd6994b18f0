// The package's main entry is the Shaka adapter, as it was before the other players came in.
export * from './shaka/index.ts';
