export const HELP: Record<string, string> = {
  main: `multidrm: test console for the license service's token and AES rules

Usage:
  multidrm token create   build a license token
  multidrm token inspect  decode a token; with keys, verify it as the license service would
  multidrm encrypt        AES-256-CBC encrypt text with a site key (base64 out)
  multidrm decrypt        decrypt base64 text with a site key

Run any command with --help for its options. Keys may come from the environment:
MULTIDRM_SITE_ID, MULTIDRM_SITE_KEY, MULTIDRM_ACCESS_KEY.
Exit codes: 0 ok, 1 invalid input or invalid token, 2 usage error.
`,
  'token create': `Usage: multidrm token create --cid CID [options]

Prints a license token (base64 of the token JSON) and a newline.

  --site-id ID          site ID            (or MULTIDRM_SITE_ID)
  --site-key KEY        32-character site key (or MULTIDRM_SITE_KEY)
  --access-key KEY      site access key    (or MULTIDRM_ACCESS_KEY)
  --cid CID             content ID (required)
  --user-id USER        user ID (default LICENSETOKEN)
  --drm-type TYPE       NCG | Widevine | PlayReady | FairPlay (default PlayReady)
  --policy JSON|@FILE   token data: {"playback_policy":…,"security_policy":…,"external_key":…}
  --timestamp TIME      yyyy-mm-ddThh:mm:ssZ (default now)
  --hash READING        hex-text (default, the spec's reading) | raw-digest

Example:
  multidrm token create --cid movie-1 --drm-type Widevine \\
    --policy '{"playback_policy":{"limit":true,"duration":3600}}'
`,
  'token inspect': `Usage: multidrm token inspect TOKEN [options]

Shows every field of a token. With both keys it also checks the hash, the validity window and
decrypts the policy, as the license service does; an invalid token exits 1 with its error code.
TOKEN may be - to read it from standard input.

  --site-key KEY        (or MULTIDRM_SITE_KEY)
  --access-key KEY      (or MULTIDRM_ACCESS_KEY)
  --site-id ID          also require the token to be for this site
  --now TIME            check validity at this time instead of now (ISO 8601)
  --validity SECONDS    validity after the timestamp (default 60)
  --skew SECONDS        allowed clock skew into the future (default 0)
  --hash READING        hex-text (default) | raw-digest
  --json                print one JSON object instead of text
`,
  encrypt: `Usage: multidrm encrypt --site-key KEY [TEXT | -]

AES-256-CBC (IV 0123456789abcdef, PKCS7) of the UTF-8 TEXT, printed as base64.
With - the text is read from standard input (one trailing newline is dropped).

  --site-key KEY        32-character site key (or MULTIDRM_SITE_KEY)
`,
  decrypt: `Usage: multidrm decrypt --site-key KEY [BASE64 | -]

Decrypts base64 AES-256-CBC text made with the site key and prints the UTF-8 plaintext.
With - the base64 is read from standard input.

  --site-key KEY        32-character site key (or MULTIDRM_SITE_KEY)
`,
};
