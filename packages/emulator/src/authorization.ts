import type { DrmType } from '@multidrm/site-kit';

/** A content key the site sent (external_key.mpeg_cenc or XML PACKINFO), as lowercase hex. */
export interface ExternalContentKey {
  /** Absent only in a v1 mpeg_cenc without key_id: then it is the key of every requested key ID. */
  kid?: string;
  key: string;
  /** v2: the track the key is for. */
  trackType?: string;
}

/** The playback policy as the site wrote it, v1 and v2 members side by side. */
export interface PlaybackGrant {
  /** v1 and gateway answers: durations and dates count only when limit is true. */
  limit?: boolean;
  persistent?: boolean;
  /** v1 and JSON gateway answers: seconds the license is valid. */
  duration?: number;
  /** v2: seconds the license is valid. */
  license_duration?: number;
  expire_date?: string;
  /** Gateway XML PD_START: playback may not start before it. */
  start_date?: string;
  rental_duration?: number;
  playback_duration?: number;
  max_stream_per_user?: number;
  renewal_duration?: number;
  allowed_track_types?: string;
}

/** What the site granted, read from a token or a gateway answer, in one shape for every source. */
export interface Grant {
  source: 'token-v1' | 'token-v2' | 'gateway-json' | 'gateway-xml';
  playback: PlaybackGrant;
  /** v1: one object; v2: one entry per track type. Reported, not enforced (ClearKey cannot). */
  security?: unknown;
  /** Gateway XML PC element, passed on as the site wrote it. */
  outputControl?: { HDCP: number; 'CGMS-A': number; APS: number };
  externalKeys?: ExternalContentKey[];
  /** Site keys ClearKey cannot use (hls_aes, ncg), by their member path. */
  unusableKeys?: string[];
  /** v2 key_rotation: true. */
  keyRotation?: boolean;
}

export type ResponseFormat = 'original' | 'json' | 'custom';

/** The outcome of token-mode or gateway-mode authorization. */
export interface Authorization {
  mode: 'token' | 'gateway';
  siteId: string;
  userId: string;
  cid: string;
  drmType: DrmType;
  grant: Grant;
  /** v2 tokens: how the license is answered; v1 tokens and gateway mode: original. */
  responseFormat: ResponseFormat;
  /** Rules the site broke that the emulator resolved by the spec's precedence. */
  warnings: string[];
}
