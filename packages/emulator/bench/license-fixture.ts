// The license request the emulator's HTTP benches send, against one site and one key: the same
// request in each, so that their figures compare.
export const SITE = { siteId: 'BENCH', siteKey: 'b'.repeat(32), accessKey: 'bench-access' };
export const KID = '00112233445566778899aabbccddeeff';
export const KEY = 'ffeeddccbbaa99887766554433221100';
export const BODY = JSON.stringify({
  kids: [Buffer.from(KID, 'hex').toString('base64url')],
  type: 'temporary',
});
export const PATH = '/ri/licenseManager.do';
