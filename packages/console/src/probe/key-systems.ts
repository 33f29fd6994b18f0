// What this browser's EME answers, asked with the same configurations a player would use. Nothing
// is fetched: requestMediaKeySystemAccess and MediaKeys are local to the browser.

export interface ProbeRow {
  /** Stable id for tests and the table. */
  id: string;
  system: string;
  keySystem: string;
  robustness: string;
  /** What a yes means for playback. */
  meaning: string;
}

export interface ProbeResult extends ProbeRow {
  supported: boolean;
  /** undefined when the key system itself is not supported. */
  persistent: boolean | undefined;
  /** getStatusForPolicy's answers, or why there are none. */
  hdcp: string;
}

const WIDEVINE = 'com.widevine.alpha';
const PLAYREADY = 'com.microsoft.playready.recommendation';

export const PROBE_ROWS: readonly ProbeRow[] = [
  {
    id: 'widevine-sw-crypto',
    system: 'Widevine',
    keySystem: WIDEVINE,
    robustness: 'SW_SECURE_CRYPTO',
    meaning: 'L3: software decryption; services usually cap it at SD.',
  },
  {
    id: 'widevine-sw-decode',
    system: 'Widevine',
    keySystem: WIDEVINE,
    robustness: 'SW_SECURE_DECODE',
    meaning: 'L3 with software decoding inside the CDM.',
  },
  {
    id: 'widevine-hw-crypto',
    system: 'Widevine',
    keySystem: WIDEVINE,
    robustness: 'HW_SECURE_CRYPTO',
    meaning: 'L2: keys and decryption in a trusted environment, decoding outside.',
  },
  {
    id: 'widevine-hw-decode',
    system: 'Widevine',
    keySystem: WIDEVINE,
    robustness: 'HW_SECURE_DECODE',
    meaning: 'L1 decoding in hardware; what security_level 1 (HD/UHD) policies need.',
  },
  {
    id: 'widevine-hw-all',
    system: 'Widevine',
    keySystem: WIDEVINE,
    robustness: 'HW_SECURE_ALL',
    meaning: 'L1 end to end, the strongest Widevine level.',
  },
  {
    id: 'playready-150',
    system: 'PlayReady',
    keySystem: PLAYREADY,
    robustness: '150',
    meaning: 'SL150: test and development clients only; no production content.',
  },
  {
    id: 'playready-2000',
    system: 'PlayReady',
    keySystem: PLAYREADY,
    robustness: '2000',
    meaning: 'SL2000: software protection; typical limit for HD.',
  },
  {
    id: 'playready-3000',
    system: 'PlayReady',
    keySystem: PLAYREADY,
    robustness: '3000',
    meaning: 'SL3000: hardware protection; needed for UHD/4K policies.',
  },
  {
    id: 'fairplay',
    system: 'FairPlay',
    keySystem: 'com.apple.fps',
    robustness: '',
    meaning: 'Safari on Apple devices; HLS with a FairPlay certificate and SPC/CKC exchange.',
  },
  {
    id: 'wiseplay',
    system: 'Wiseplay',
    keySystem: 'com.huawei.wiseplay',
    robustness: '',
    meaning: "Huawei devices' DRM (drm_type Wiseplay).",
  },
  {
    id: 'clearkey',
    system: 'ClearKey',
    keySystem: 'org.w3.clearkey',
    robustness: '',
    meaning: 'No protection of the key: tests and the emulator only, never for paid content.',
  },
];

const HDCP_VERSIONS = ['1.0', '2.2', '2.3'];

function configuration(row: ProbeRow, persistent: boolean): MediaKeySystemConfiguration {
  const video = { contentType: 'video/mp4; codecs="avc1.42E01E"', robustness: row.robustness };
  const audio = { contentType: 'audio/mp4; codecs="mp4a.40.2"' };
  return {
    initDataTypes: ['cenc', 'sinf', 'skd', 'keyids'],
    videoCapabilities: [video],
    audioCapabilities: [audio],
    ...(persistent ? { persistentState: 'required', sessionTypes: ['persistent-license'] } : {}),
  };
}

async function access(row: ProbeRow, persistent: boolean): Promise<MediaKeySystemAccess | null> {
  try {
    return await navigator.requestMediaKeySystemAccess(row.keySystem, [
      configuration(row, persistent),
    ]);
  } catch {
    return null;
  }
}

/** getStatusForPolicy is in Chromium-based browsers only; other browsers get a plain "not asked". */
async function hdcp(keys: MediaKeySystemAccess): Promise<string> {
  let mediaKeys: MediaKeys;
  try {
    mediaKeys = await keys.createMediaKeys();
  } catch {
    return 'could not create MediaKeys';
  }
  const ask = (
    mediaKeys as MediaKeys & {
      getStatusForPolicy?: (policy: { minHdcpVersion: string }) => Promise<string>;
    }
  ).getStatusForPolicy;
  if (typeof ask !== 'function') return 'not available in this browser';
  const answers: string[] = [];
  for (const version of HDCP_VERSIONS) {
    try {
      answers.push(`${version}: ${await ask.call(mediaKeys, { minHdcpVersion: version })}`);
    } catch {
      answers.push(`${version}: not answered`);
    }
  }
  return answers.join(', ');
}

export async function probe(rows: readonly ProbeRow[] = PROBE_ROWS): Promise<ProbeResult[]> {
  if (typeof navigator.requestMediaKeySystemAccess !== 'function') {
    return rows.map((row) => ({ ...row, supported: false, persistent: undefined, hdcp: 'no EME' }));
  }
  const results: ProbeResult[] = [];
  for (const row of rows) {
    const temporary = await access(row, false);
    if (temporary === null) {
      results.push({ ...row, supported: false, persistent: undefined, hdcp: '—' });
      continue;
    }
    const persistent = (await access(row, true)) !== null;
    results.push({ ...row, supported: true, persistent, hdcp: await hdcp(temporary) });
  }
  return results;
}
