import type { LicenseDrm } from './license-body.ts';
import { base64ToBytes, bytesToBase64, utf8Bytes } from './web/bytes.ts';

// What the emulator answers where the service would answer with a real DRM's license or
// certificate. The emulator has no Widevine, PlayReady, FairPlay or Wiseplay keys, so these are
// stand-ins in the service's exact wire format: a player, proxy or site can test its request and
// answer path (token, body, answer reading and unwrapping) against them; no CDM will accept them, and
// nothing is decrypted with them. Each one says so in its own bytes.

/** The text every stand-in starts with, so a test (or a person reading a dump) can tell one. */
export const STAND_IN_MARK = 'multidrm emulator stand-in';

export type StandInDrm = Exclude<LicenseDrm, 'ClearKey'>;

/** The stand-in license's bytes: a sentence naming the DRM, the content and the license type. */
export function standInLicenseBytes(
  drm: StandInDrm,
  facts: { cid: string; persistent: boolean },
): Uint8Array {
  return utf8Bytes(
    `${STAND_IN_MARK} ${drm} license, not decryptable; cid ${JSON.stringify(facts.cid)}; ${facts.persistent ? 'persistent' : 'temporary'}`,
  );
}

/**
 * A PlayReady license as the CDM takes it: the SOAP AcquireLicenseResponse around base64 license
 * data (here the stand-in bytes).
 */
export function standInPlayReadyResponse(license: Uint8Array): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
    '<AcquireLicenseResponse xmlns="http://schemas.microsoft.com/DRM/2007/03/protocols">' +
    '<AcquireLicenseResult><Response><LicenseResponse><Licenses>' +
    `<License>${bytesToBase64(license)}</License>` +
    '</Licenses></LicenseResponse></Response></AcquireLicenseResult>' +
    '</AcquireLicenseResponse></soap:Body></soap:Envelope>'
  );
}

/**
 * A self-signed X.509 certificate (DER) made once for the emulator with openssl, its private key
 * thrown away: the shape of the FairPlay application certificate (fpsCert.do; base64 from
 * fpsKeyManager.do), with subject "CN=multidrm emulator stand-in FairPlay certificate".
 */
const FAIRPLAY_CERTIFICATE_BASE64 =
  'MIIByzCCAXGgAwIBAgIUdvpbIpJO9aMVAO0NWUuo1QnoFiEwCgYIKoZIzj0EAwIwOjE4MDYGA1UEAwwvbXVsdGlkcm0gZW11bGF0b3Igc3RhbmQtaW4gRmFpclBsYXkgY2VydGlmaWNhdGUwIBcNMjYxMTI1MTIwMTQ0WhgPMjEyNjExMDExMjAxNDRaMDoxODA2BgNVBAMML211bHRpZHJtIGVtdWxhdG9yIHN0YW5kLWluIEZhaXJQbGF5IGNlcnRpZmljYXRlMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEaI9sacfjefWMSBBVei5EUQAFKh6LBFPzs/CPGmwg9p08FbzaxsB4zyZMfiVLptVZA1xEy94iZVCBTwIkCBU97qNTMFEwHQYDVR0OBBYEFFY/mIYq6Rkgo9KeqbbUACpymHQMMB8GA1UdIwQYMBaAFFY/mIYq6Rkgo9KeqbbUACpymHQMMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIgDETFyPjW4TuhrPmUkhF+WMon3qbSg/DapINepcdZmmcCIQC4Kr56dYbydCuYZaPq51oGMyFb3h+9yUmVOcuyPGPxBQ==';

export const standInFairPlayCertificate = (): Uint8Array<ArrayBuffer> =>
  new Uint8Array(base64ToBytes(FAIRPLAY_CERTIFICATE_BASE64));

/**
 * A Widevine service certificate's place: a protobuf message whose field 1 (the certificate bytes
 * of a real SignedDrmCertificate) holds the stand-in sentence.
 */
export function standInWidevineCertificate(): Uint8Array<ArrayBuffer> {
  const text = utf8Bytes(`${STAND_IN_MARK} Widevine service certificate, not a real one`);
  return Uint8Array.from([0x0a, text.length, ...text]);
}
