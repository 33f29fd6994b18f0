import type { DrmType, SecurityPolicy } from '@multidrm/site-kit';

/** What the site granted, read from a token or a gateway answer, in one shape for both modes. */
export interface Grant {
  playback: {
    limit?: boolean;
    persistent?: boolean;
    duration?: number;
    expire_date?: string;
    /** Gateway XML PD_START: playback may not start before it. */
    start_date?: string;
  };
  security?: SecurityPolicy;
  /** Gateway XML PC element, passed on as the site wrote it. */
  outputControl?: { HDCP: number; 'CGMS-A': number; APS: number };
  /** external_key.mpeg_cenc (or XML PACKINFO), as lowercase hex. */
  externalKey?: { kid?: string; key: string };
}

/** The outcome of token-mode or gateway-mode authorization. */
export interface Authorization {
  mode: 'token' | 'gateway';
  siteId: string;
  userId: string;
  cid: string;
  drmType: DrmType;
  grant: Grant;
  /** Rules the site broke that the emulator resolved by the spec's precedence. */
  warnings: string[];
}
